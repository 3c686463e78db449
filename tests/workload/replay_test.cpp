// trainsim replay through the real executable: the 4-rank microbenchmarks against
// trainsim collective, the 8-rank custom ring, the real one-rank trace, traces written here
// (overlap, p2p, a cycle refused; the other refusals: replay_refusals_test.cpp).

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "support/run_trainsim.hpp"
#include "support/shared_data.hpp"
#include "support/test_folders.hpp"
#include "workload/trace_fixture.hpp"

namespace trainsim::workload {
namespace {

using namespace trainsim::workload::test;
using trainsim::testing::run_trainsim;

nlohmann::json replay_json(const std::string& prefix, const std::vector<std::string>& more = {}) {
  std::vector<std::string> args{"replay", prefix, "--json"};
  args.insert(args.end(), more.begin(), more.end());
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(ChakraReplay, MicrobenchmarksMatchTheCollectiveCommand) {
  // comm_size 1 MiB in each; an all-gather's is each rank's input (ASTRA-sim's convention),
  // so nccl-tests' size for it is 4 MiB.
  const std::vector<std::tuple<std::string, std::string, std::string>> ops{{"all_reduce", "allreduce", "1M"},
                                                                           {"all_gather", "allgather", "4M"},
                                                                           {"reduce_scatter", "reducescatter", "1M"},
                                                                           {"all_to_all", "alltoall", "1M"}};
  for (const auto& [dir, op, size] : ops) {
    const std::string prefix =
        testing::shared_data_path("chakra/astra-sim/microbenchmarks/" + dir + "/4npus_1MB/" + dir);
    TRAINSIM_SKIP_WITHOUT(prefix + ".0.et");
    const nlohmann::json replay = replay_json(prefix, {"--cluster", "dgx-h100"});
    EXPECT_EQ(replay["cluster_gpus"], 8);
    ASSERT_EQ(replay["comms"].size(), 1u) << op;
    const auto c = run_trainsim(
        {"collective", "--op", op, "--gpus", "4", "--cluster", "dgx-h100", "-b", size, "-e", size, "--json"});
    ASSERT_EQ(c.exit_code, 0) << c.err;
    const nlohmann::json row = nlohmann::json::parse(c.out)[0];
    EXPECT_EQ(replay["replay_time_s"].get<double>(), row["time_s"].get<double>()) << op;
    EXPECT_EQ(replay["comms"][0]["busbw_GBps"].get<double>(), row["busbw_GBps"].get<double>()) << op;
    EXPECT_EQ(replay["per_gpu_s"]["exposed_comm"].get<double>(), replay["replay_time_s"].get<double>()) << op;
  }
}

TEST(ChakraReplay, CustomRingMatchesSendsAndReceives) {
  const std::string prefix =
      testing::shared_data_path("chakra/astra-sim/custom_ring_allreduce_8npus_1MB/custom_allreduce");
  TRAINSIM_SKIP_WITHOUT(prefix + ".0.et");
  const nlohmann::json j = replay_json(prefix, {"--cluster", "dgx-h100"});
  EXPECT_EQ(j["ranks"], 8);
  EXPECT_EQ(j["comm_totals"]["p2p"]["count"], 112);  // 8 ranks x 14 sends
  EXPECT_EQ(j["comm_totals"]["p2p"]["bytes"], 112u * 131072u);
  // 7 reductions of 7 us each, one after the other on every rank, and the transfers between.
  EXPECT_DOUBLE_EQ(j["per_gpu_s"]["compute"].get<double>(), 49e-6);
  EXPECT_GT(j["replay_time_s"].get<double>(), 49e-6);
  for (const auto& r : j["per_rank"])
    EXPECT_NEAR(r["compute_s"].get<double>() + r["exposed_comm_s"].get<double>() + r["idle_s"].get<double>(),
                j["replay_time_s"].get<double>(), 1e-15);
}

TEST(ChakraReplay, RealTraceReplaysOnOneGpu) {
  const std::string archive = testing::shared_data_path("chakra/mlcommons-chakra/feeder_tests_trace.tar.gz");
  TRAINSIM_SKIP_WITHOUT(archive);
  const auto dir = testing::fresh_test_dir("chakra-replay-feeder");
  ASSERT_EQ(std::system(("tar -xzf '" + archive + "' -C '" + dir.string() + "'").c_str()), 0);
  const auto r = run_trainsim({"replay", (dir / "tests/data/chakra").string(), "--cluster", "dgx-h100", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ranks"], 1);
  EXPECT_EQ(j["tolerated"]["cpu_collectives"], 14);
  EXPECT_EQ(j["tolerated"]["missing_deps"], 1277);
  // One GPU: its collectives take no fabric time, its kernels run one after another.
  EXPECT_NEAR(j["replay_time_s"].get<double>(), 0.292828, 1e-9);
  // The tolerated faults are reported once, on one line.
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("tolerated 1277 dependencies on nodes not in the file"), std::string::npos) << r.err;
}

TEST(ChakraReplay, CollectiveOverlapsIndependentCompute) {
  const auto dir = testing::fresh_test_dir("chakra-overlap");
  const std::string prefix = (dir / "o").string();
  // Each rank: a 100 us kernel, and beside it (no dependency) a 1 MiB all-reduce; then a
  // kernel that waits for both.
  for (int r = 0; r < 2; ++r)
    write_bytes(prefix + "." + std::to_string(r) + ".et",
                encode_trace({make_node(1, pb::COMP_NODE, {}, 100), make_collective(2, 0, 1048576),
                              make_node(3, pb::COMP_NODE, {1, 2}, 10)}));
  const nlohmann::json j = replay_json(prefix);
  EXPECT_NEAR(j["replay_time_s"].get<double>(), 110e-6, 1e-12);
  EXPECT_EQ(j["per_gpu_s"]["exposed_comm"].get<double>(), 0.0);
  EXPECT_GT(j["comms"][0]["time_s"].get<double>(), 0.0);
}

TEST(ChakraReplay, ReceiveWaitsForItsSend) {
  const auto dir = testing::fresh_test_dir("chakra-p2p");
  const std::string prefix = (dir / "p").string();
  write_bytes(prefix + ".0.et", encode_trace({make_node(1, pb::COMP_NODE, {}, 50), make_send(2, 1, 1 << 20, {1})}));
  write_bytes(prefix + ".1.et", encode_trace({make_recv(1, 0, 1 << 20), make_node(2, pb::COMP_NODE, {1}, 5)}));
  const nlohmann::json j = replay_json(prefix);
  const double transfer = j["comms"][0]["time_s"].get<double>();
  EXPECT_GT(transfer, 0.0);
  EXPECT_NEAR(j["replay_time_s"].get<double>(), 50e-6 + transfer + 5e-6, 1e-12);
}

// --chrome-trace: every rank's nodes on its compute, comm and pp_comm threads, as played.
TEST(ChakraReplay, TimelineForPerfetto) {
  const auto dir = testing::fresh_test_dir("chakra-timeline");
  const std::string prefix = (dir / "t").string();
  write_bytes(prefix + ".0.et", encode_trace({make_node(1, pb::COMP_NODE, {}, 50), make_send(2, 1, 1 << 20, {1}),
                                              make_collective(3, 0, 1048576, {2})}));
  write_bytes(prefix + ".1.et", encode_trace({make_recv(1, 0, 1 << 20), make_node(2, pb::COMP_NODE, {1}, 5),
                                              make_collective(3, 0, 1048576, {2})}));
  const std::string trace = (dir / "timeline.json").string();
  const nlohmann::json j = replay_json(prefix, {"--chrome-trace", trace});
  std::ifstream in(trace);
  const nlohmann::json t = nlohmann::json::parse(in);
  std::map<std::pair<int, std::string>, int> events;  // (tid, category) -> events
  double last_end_us = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++events[{e["tid"].get<int>(), e["cat"].get<std::string>()}];
    last_end_us = std::max(last_end_us, e["ts"].get<double>() + e["dur"].get<double>());
  }
  // Rank 0 (tid 0-7) and rank 1 (tid 8-15): a kernel each, the transfer on its sender's
  // pp_comm thread, the all-reduce on both.
  const std::map<std::pair<int, std::string>, int> expected{
      {{0, "compute"}, 1}, {{2, "pp_comm"}, 1}, {{5, "comm"}, 1}, {{8, "compute"}, 1}, {{13, "comm"}, 1}};
  EXPECT_EQ(events, expected);
  EXPECT_NEAR(last_end_us, j["replay_time_s"].get<double>() * 1e6, 0.01);
  EXPECT_EQ(t["otherData"]["scenario"], prefix);

  // Not a file name: refused before anything runs.
  const auto r = run_trainsim({"replay", prefix, "--chrome-trace", dir.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--chrome-trace"), std::string::npos) << r.err;
}

// --compute-from-ops: kernels that recorded their work take the datasheet roofline's time for
// it (a GEMM of num_ops FLOPs; tensor_size bytes alone: a memory-bound op); the others keep
// their recorded durations.
TEST(ChakraReplay, ComputeFromOps) {
  const auto dir = testing::fresh_test_dir("chakra-ops");
  const std::string prefix = (dir / "k").string();
  const auto trace = [&](std::int64_t flops) {
    pb::Node gemm = make_node(1, pb::COMP_NODE, {}, 1000);
    add_int64(gemm, "num_ops", flops);
    pb::Node copy = make_node(2, pb::COMP_NODE, {1}, 1000);
    add_uint64(copy, "tensor_size", 1 << 30);
    const pb::Node plain = make_node(3, pb::COMP_NODE, {2}, 100);
    write_bytes(prefix + ".0.et", encode_trace({gemm, copy, plain}));
  };
  trace(400'000'000'000'000);                                                       // 400 TFLOP
  EXPECT_NEAR(replay_json(prefix)["replay_time_s"].get<double>(), 2100e-6, 1e-12);  // recorded
  const double once = replay_json(prefix, {"--compute-from-ops"})["replay_time_s"].get<double>();
  trace(800'000'000'000'000);
  const double twice = replay_json(prefix, {"--compute-from-ops"})["replay_time_s"].get<double>();
  // An H100's bf16 roofline: the GEMM takes about 0.5 s per 400 TFLOP, the 1 GiB copy well
  // under a millisecond, the plain kernel its 100 us.
  EXPECT_GT(once, 0.3);
  EXPECT_LT(once, 1.0);
  EXPECT_NEAR(twice - once, once - 100e-6, 0.01 * once);

  // The timeline shows the kernels at the times they took: one after another from 0.
  const std::string timeline = (dir / "ops.json").string();
  replay_json(prefix, {"--compute-from-ops", "--chrome-trace", timeline});
  std::ifstream in(timeline);
  const nlohmann::json t = nlohmann::json::parse(in);
  double end_us = 0;
  int kernels = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] != "X") continue;
    EXPECT_NEAR(e["ts"].get<double>(), end_us, 0.01) << e.dump();
    end_us = e["ts"].get<double>() + e["dur"].get<double>();
    ++kernels;
  }
  EXPECT_EQ(kernels, 3);
  EXPECT_NEAR(end_us, twice * 1e6, 0.01);
}

// compute + exposed_comm + idle = the replay time, each >= 0, whatever the nodes' durations: a
// rank's last kernel of up to 2^64 - 1 us (the largest duration_micros) after a collective and
// short kernels. Its length rounds to its end, so the time before it counted twice and idle
// came out negative (-7 us; -1.5e-16 s for a kernel of 1.23 s).
TEST(ChakraReplay, IdleIsNeverNegative) {
  const auto dir = testing::fresh_test_dir("chakra-idle");
  const std::string prefix = (dir / "i").string();
  const std::uint64_t longest = ~std::uint64_t{0};
  for (const std::uint64_t last : {longest, longest / 3, std::uint64_t{123456789123}, std::uint64_t{1234567},
                                   std::uint64_t{0}}) {
    // Rank 0: a short kernel, a collective, then `last` us of compute, its last node.
    write_bytes(prefix + ".0.et", encode_trace({make_node(1, pb::COMP_NODE, {}, 7), make_collective(2, 0, 1 << 20, {1}),
                                                make_node(3, pb::COMP_NODE, {2}, 3), make_node(4, pb::COMP_NODE, {3}, last)}));
    write_bytes(prefix + ".1.et", encode_trace({make_node(1, pb::COMP_NODE, {}, 0), make_collective(2, 0, 1 << 20, {1}),
                                                make_node(3, pb::COMP_NODE, {2}, 5)}));
    const nlohmann::json j = replay_json(prefix);
    const double time = j["replay_time_s"].get<double>();
    EXPECT_GE(j["per_gpu_s"]["idle"].get<double>(), 0.0) << last;
    for (const auto& r : j["per_rank"]) {
      EXPECT_GE(r["idle_s"].get<double>(), 0.0) << last << " " << r.dump();
      EXPECT_GE(r["exposed_comm_s"].get<double>(), 0.0) << last;
      EXPECT_LE(r["compute_s"].get<double>(), time) << last << " " << r.dump();
      EXPECT_NEAR(r["compute_s"].get<double>() + r["exposed_comm_s"].get<double>() + r["idle_s"].get<double>(), time,
                  1e-12 * time)
          << last;
    }
  }
}

TEST(ChakraReplay, RefusesACycle) {
  const auto dir = testing::fresh_test_dir("chakra-cycle");
  const std::string prefix = (dir / "c").string();
  write_bytes(prefix + ".0.et",
              encode_trace({make_node(1, pb::COMP_NODE, {2}, 1), make_node(2, pb::COMP_NODE, {1}, 1)}));
  const auto r = run_trainsim({"replay", prefix});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(prefix + ".0.et: node 1: a dependency cycle"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(ChakraReplay, MissingPrefix) {
  const auto r = run_trainsim({"replay", "/nonexistent/x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/x.0.et: no such file"), std::string::npos) << r.err;
}

TEST(ChakraReplay, TooFewGpus) {
  const auto dir = testing::fresh_test_dir("chakra-gpus");
  const std::string prefix = (dir / "g").string();
  for (int r = 0; r < 9; ++r)
    write_bytes(prefix + "." + std::to_string(r) + ".et", encode_trace({make_node(1, pb::COMP_NODE, {}, 1)}));
  const auto r = run_trainsim({"replay", prefix, "--nodes", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("8 GPUs, fewer than the workload's 9 ranks"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace trainsim::workload
