// The reader on the shipped samples (counts from ../shared/data/chakra/SOURCE.md) and on
// traces written here: each attribute encoding, gzip.

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <numeric>

#include "sim/workload/chakra_reader.hpp"
#include "sim/workload/workload.hpp"
#include "support/shared_data.hpp"
#include "support/test_folders.hpp"
#include "workload/trace_fixture.hpp"

namespace trainsim::workload {
namespace {

using namespace trainsim::workload::test;

const char* const k_micro = "chakra/astra-sim/microbenchmarks/";

std::uint64_t count_kind(const RankTrace& t, NodeKind k) {
  return static_cast<std::uint64_t>(
      std::count_if(t.nodes.begin(), t.nodes.end(), [k](const ChakraNode& n) { return n.kind == k; }));
}

TEST(ChakraReader, MicrobenchmarksHoldOneCollectiveEach) {
  const std::vector<std::pair<std::string, CommType>> ops{{"all_reduce", CommType::all_reduce},
                                                          {"all_gather", CommType::all_gather},
                                                          {"reduce_scatter", CommType::reduce_scatter},
                                                          {"all_to_all", CommType::all_to_all}};
  for (const auto& [op, type] : ops) {
    const std::string prefix = testing::shared_data_path(k_micro + op + "/4npus_1MB/" + op);
    TRAINSIM_SKIP_WITHOUT(prefix + ".0.et");
    const Workload w = read_workload(prefix);
    ASSERT_EQ(w.ranks.size(), 4u) << op;
    for (const RankTrace& t : w.ranks) {
      EXPECT_EQ(t.version, "0.0.4");
      ASSERT_EQ(t.nodes.size(), 1u);
      const ChakraNode& n = t.nodes[0];
      EXPECT_EQ(n.id, static_cast<std::uint64_t>(t.rank));  // the node id equals the rank
      EXPECT_EQ(n.kind, NodeKind::collective);
      EXPECT_EQ(n.comm_type, type) << op;
      EXPECT_EQ(n.comm_bytes, 1048576.0);
      EXPECT_FALSE(n.is_cpu_op);
    }
  }
}

TEST(ChakraReader, CustomRingSendsAndReceives) {
  const std::string prefix =
      testing::shared_data_path("chakra/astra-sim/custom_ring_allreduce_8npus_1MB/custom_allreduce");
  TRAINSIM_SKIP_WITHOUT(prefix + ".0.et");
  const Workload w = read_workload(prefix);
  ASSERT_EQ(w.ranks.size(), 8u);
  for (const RankTrace& t : w.ranks) {
    EXPECT_EQ(t.metadata.at("schema"), "1.0.2-chakra.0.0.4");
    EXPECT_EQ(t.metadata.at("collective"), "allreduce");
    EXPECT_EQ(count_kind(t, NodeKind::send), 14u);
    EXPECT_EQ(count_kind(t, NodeKind::recv), 14u);
    EXPECT_EQ(count_kind(t, NodeKind::compute), 7u);
    std::size_t deps = 0;
    for (const ChakraNode& n : t.nodes) {
      deps += n.deps.size();
      if (n.kind == NodeKind::compute) {
        EXPECT_EQ(n.duration_s, 7e-6);
      }
      if (n.kind == NodeKind::send) {
        EXPECT_EQ(*n.comm_dst, (t.rank + 1) % 8);
        EXPECT_EQ(n.comm_bytes, 131072.0);
        EXPECT_EQ(n.comm_tag, 0);
      }
      if (n.kind == NodeKind::recv) {
        EXPECT_EQ(*n.comm_src, (t.rank + 7) % 8);
      }
    }
    EXPECT_EQ(deps, 34u);
    EXPECT_EQ(t.tolerated.describe(), "");
  }
}

TEST(ChakraReader, RealResNetTraceCounts) {
  const std::string archive = testing::shared_data_path("chakra/mlcommons-chakra/feeder_tests_trace.tar.gz");
  TRAINSIM_SKIP_WITHOUT(archive);
  const auto dir = testing::fresh_test_dir("chakra-feeder");
  ASSERT_EQ(std::system(("tar -xzf '" + archive + "' -C '" + dir.string() + "'").c_str()), 0);
  const RankTrace t = read_rank_trace((dir / "tests/data/chakra.0.et").string(), 0);
  EXPECT_EQ(t.version, "");
  EXPECT_EQ(t.metadata.at("schema"), "1.0.1");
  EXPECT_EQ(t.nodes.size(), 3664u);
  EXPECT_EQ(t.count_of_type(4), 3643u);  // COMP_NODE
  EXPECT_EQ(t.count_of_type(7), 21u);    // COMM_COLL_NODE
  EXPECT_EQ(t.tolerated.cpu_collectives, 14u);
  EXPECT_EQ(t.tolerated.missing_deps, 1277u);  // ctrl_deps to nodes not in the file
  std::vector<double> broadcasts;
  double all_reduce_bytes = 0;
  int all_reduces = 0;
  double gpu_compute_us = 0, cpu_us = 0, gpu_coll_us = 0;
  std::size_t deps = 0;
  for (const ChakraNode& n : t.nodes) {
    deps += n.deps.size();
    if (n.kind == NodeKind::collective) {
      EXPECT_EQ(n.involved_dim, std::vector<bool>{true});
      gpu_coll_us += n.duration_s * 1e6;
      if (n.comm_type == CommType::broadcast) broadcasts.push_back(n.comm_bytes);
      if (n.comm_type == CommType::all_reduce) {
        ++all_reduces;
        all_reduce_bytes += n.comm_bytes;
      }
    }
    if (n.kind == NodeKind::compute) gpu_compute_us += n.duration_s * 1e6;
    if (n.is_cpu_op && n.type == 4) cpu_us += n.duration_s * 1e6;  // CPU COMP nodes (not the c10d:: ones)
  }
  EXPECT_EQ(broadcasts, (std::vector<double>{212480, 424}));
  EXPECT_EQ(all_reduces, 5);
  EXPECT_EQ(all_reduce_bytes, 102228128.0);
  EXPECT_NEAR(gpu_compute_us, 292828, 0.5);
  EXPECT_NEAR(cpu_us, 50941, 0.5);
  EXPECT_NEAR(gpu_coll_us, 36715, 0.5);
  // Every data_dep is in the file; the ctrl_deps in it are kept where they agree with the
  // data order: 181,878 + 2,387 - those dropped.
  EXPECT_EQ(deps, 181878u + 2387u - t.tolerated.reversed_ctrl_deps);
}

TEST(ChakraReader, AcceptsEveryIntegerEncoding) {
  pb::Node n = make_node(5, pb::COMM_SEND_NODE);
  add_uint64(n, "comm_size", 4096);
  add_int32(n, "comm_dst", 1);
  add_uint64(n, "comm_tag", 3);
  add_int64(n, "is_cpu_op", 0);
  pb::Node c = make_node(6, pb::COMM_COLL_NODE, {5});
  add_bool(c, "is_cpu_op", false);
  add_int32(c, "comm_type", 7);
  add_int64(c, "comm_size", 8);
  auto* dims = c.add_attr();
  dims->set_name("involved_dim");
  dims->mutable_int32_list()->add_values(1);
  const RankTrace t = parse_rank_trace(encode_trace({n, c}), "t.0.et", 0);
  ASSERT_EQ(t.nodes.size(), 2u);
  EXPECT_EQ(t.nodes[0].comm_bytes, 4096.0);
  EXPECT_EQ(*t.nodes[0].comm_dst, 1);
  EXPECT_EQ(t.nodes[0].comm_tag, 3);
  EXPECT_EQ(t.nodes[1].comm_type, CommType::reduce_scatter);
  EXPECT_EQ(t.nodes[1].involved_dim, std::vector<bool>{true});
  EXPECT_EQ(t.nodes[1].deps, std::vector<std::uint32_t>{0});
}

TEST(ChakraReader, ReadsGzip) {
  const std::string plain = encode_trace({make_node(1, pb::COMP_NODE, {}, 10), make_node(2, pb::COMP_NODE, {1}, 5)});
  const auto dir = testing::fresh_test_dir("chakra-gzip");
  const std::string path = (dir / "g.0.et").string();
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  gzwrite(f, plain.data(), static_cast<unsigned>(plain.size()));
  gzclose(f);
  const RankTrace t = read_rank_trace(path, 0);
  ASSERT_EQ(t.nodes.size(), 2u);
  EXPECT_EQ(t.nodes[1].duration_s, 5e-6);
}

TEST(ChakraReader, ToleratesAndCountsFaults) {
  pb::Node cpu = make_node(1, pb::COMM_COLL_NODE);
  add_bool(cpu, "is_cpu_op", true);
  pb::Node zero = make_node(2, pb::COMP_NODE, {1, 99});  // 99 is not in the file
  const RankTrace t = parse_rank_trace(encode_trace({cpu, zero}), "t.0.et", 0);
  EXPECT_EQ(t.tolerated.missing_deps, 1u);
  EXPECT_EQ(t.tolerated.cpu_collectives, 1u);
  EXPECT_EQ(t.tolerated.zero_durations, 1u);
  EXPECT_EQ(t.tolerated.describe(),
            "1 dependencies on nodes not in the file (dropped), 1 CPU-side collective nodes (skipped), 1 GPU compute "
            "nodes of 0 us");
}

}  // namespace
}  // namespace trainsim::workload
