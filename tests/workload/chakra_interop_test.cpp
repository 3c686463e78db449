// trainsim's Chakra exports as other tools read them (issue 58, item 4): each exported file
// parsed with the classes of trainsim's schema (sim/workload/chakra_et.proto, which states
// Chakra's main schema @ 21585d8f field by field), every field and attribute that ASTRA-sim (astra-sim @
// 518bd513, astra-sim/workload/Workload.cc) and Chakra's feeder (mlcommons/chakra @ 21585d8f,
// src/feeder/et_feeder_node.cpp) read checked with the value type the feeder reads it as, and
// the comm-group configuration ASTRA-sim's --comm-group-configuration reads checked against the
// groups the traces use.

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/delimited_message_util.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "chakra_et.pb.h"
#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"
#include "workload/export_scenario.hpp"

namespace trainsim::workload {
namespace {

namespace fs = std::filesystem;
using trainsim::testing::run_trainsim;

constexpr int k_world = 16;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `dir`/out, exported with `sets`; the export's folder.
fs::path export_step(const std::string& name, const std::vector<std::string>& sets) {
  const fs::path dir = trainsim::testing::fresh_test_dir(name);
  std::vector<std::string> args{"run", trainsim::testing::write_temp_file(name + ".ini", k_export_scenario), "--json",
                                "--chakra-out", (dir / "out").string()};
  for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir / "out";
}

double replay_s(const std::string& prefix) {
  const auto r = run_trainsim({"replay", prefix, "--cluster", "dgx-h100", "--nodes", "2", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out)["replay_time_s"].get<double>() : -1.0;
}

// A file's records with the schema's classes: its GlobalMetadata, then its nodes.
struct UpstreamTrace {
  chakra::GlobalMetadata meta;
  std::vector<chakra::Node> nodes;
};

UpstreamTrace parse_upstream(const fs::path& path) {
  const std::string bytes = read_file(path);
  google::protobuf::io::ArrayInputStream in(bytes.data(), static_cast<int>(bytes.size()));
  UpstreamTrace t;
  bool clean_eof = false;
  EXPECT_TRUE(google::protobuf::util::ParseDelimitedFromZeroCopyStream(&t.meta, &in, &clean_eof)) << path;
  for (chakra::Node n; google::protobuf::util::ParseDelimitedFromZeroCopyStream(&n, &in, &clean_eof); n.Clear())
    t.nodes.push_back(n);
  EXPECT_TRUE(clean_eof) << path << ": a record the schema's classes cannot parse";
  return t;
}

const chakra::Attribute* attr(const chakra::Node& n, const std::string& name) {
  const chakra::Attribute* found = nullptr;
  for (const chakra::Attribute& a : n.attr())
    if (a.name() == name) {
      EXPECT_EQ(found, nullptr) << "node " << n.id() << ": attribute " << name << " twice";
      found = &a;
    }
  return found;
}

// The value type each attribute is read as by Chakra's feeder (et_feeder_node.cpp reads one
// oneof field per name; any other reads as 0), and pg_desc, trainsim's readable group name.
const std::map<std::string, chakra::Attribute::ValueCase>& feeder_types() {
  static const std::map<std::string, chakra::Attribute::ValueCase> types{
      {"is_cpu_op", chakra::Attribute::kBoolVal},      {"num_ops", chakra::Attribute::kInt64Val},
      {"tensor_size", chakra::Attribute::kUint64Val},  {"comm_type", chakra::Attribute::kInt64Val},
      {"comm_priority", chakra::Attribute::kInt32Val}, {"comm_size", chakra::Attribute::kInt64Val},
      {"comm_src", chakra::Attribute::kInt32Val},      {"comm_dst", chakra::Attribute::kInt32Val},
      {"comm_tag", chakra::Attribute::kInt32Val},      {"pg_name", chakra::Attribute::kStringVal},
      {"pg_desc", chakra::Attribute::kStringVal}};
  return types;
}

// ASTRA-sim's --comm-group-configuration: {"<id>": [ranks], ...}, read with std::stoi on each
// key (Workload::initialize_comm_groups).
std::map<int, std::vector<int>> read_comm_groups(const fs::path& file) {
  std::map<int, std::vector<int>> groups;
  const nlohmann::json j = nlohmann::json::parse(read_file(file), nullptr, false);
  EXPECT_TRUE(j.is_object()) << file;
  if (!j.is_object()) return groups;
  for (const auto& [key, ranks] : j.items()) {
    size_t used = 0;
    const int id = std::stoi(key, &used);
    EXPECT_EQ(used, key.size()) << "key '" << key << "' is not an integer";
    EXPECT_GE(id, 1) << "0 is ASTRA-sim's every-rank group";
    EXPECT_TRUE(ranks.is_array()) << key;
    for (const auto& r : ranks) {
      EXPECT_TRUE(r.is_number_integer()) << key;
      groups[id].push_back(r.get<int>());
    }
  }
  return groups;
}

// Every file of the export in `dir` read with the schema's classes, each attribute ASTRA-sim
// and the feeder read present with its type, pg_names that are keys of the comm-group file
// whose rank lists are the ranks that use them, peers and tags that match.
void check_export(const fs::path& dir) {
  const std::map<int, std::vector<int>> groups = read_comm_groups(dir / "comm_groups.json");
  const nlohmann::json manifest = nlohmann::json::parse(read_file(dir / "chakra-export.json"));
  EXPECT_EQ(manifest["comm_groups"]["file"], "comm_groups.json");
  std::map<int, std::set<int>> users;            // pg_name -> the ranks whose traces use it
  std::map<int, std::string> descs;              // pg_name -> pg_desc
  std::map<std::tuple<int, int, int>, int> p2p;  // (src, dst, tag) -> sends - receives
  int computes = 0, collectives = 0, sends = 0;
  for (int rank = 0; rank < k_world; ++rank) {
    const UpstreamTrace t = parse_upstream(dir / ("step." + std::to_string(rank) + ".et"));
    for (const chakra::Node& n : t.nodes) {
      SCOPED_TRACE("rank " + std::to_string(rank) + ", node " + std::to_string(n.id()) + " " + n.name());
      for (const chakra::Attribute& a : n.attr()) {
        const auto want = feeder_types().find(a.name());
        if (want != feeder_types().end()) {
          EXPECT_EQ(a.value_case(), want->second) << a.name();
        }
      }
      const auto* cpu = attr(n, "is_cpu_op");
      ASSERT_NE(cpu, nullptr);
      EXPECT_FALSE(cpu->bool_val());
      switch (n.type()) {
        case chakra::COMP_NODE: {
          ++computes;
          const auto* ops = attr(n, "num_ops");
          const auto* bytes = attr(n, "tensor_size");  // ASTRA-sim's roofline needs both
          ASSERT_TRUE(ops && bytes);
          EXPECT_GE(ops->int64_val(), 0);
          // A node with FLOPs touches memory; one without has 0 bytes, which ASTRA-sim skips.
          EXPECT_EQ(bytes->uint64_val() > 0, ops->int64_val() > 0) << ops->int64_val() << " " << bytes->uint64_val();
          break;
        }
        case chakra::COMM_COLL_NODE: {
          ++collectives;
          const auto* type = attr(n, "comm_type");
          const auto* size = attr(n, "comm_size");
          const auto* pg = attr(n, "pg_name");
          const auto* desc = attr(n, "pg_desc");
          ASSERT_TRUE(type && size && pg && desc);
          EXPECT_TRUE(chakra::CollectiveCommType_IsValid(static_cast<int>(type->int64_val())));
          EXPECT_GT(size->int64_val(), 0);
          size_t used = 0;
          const int id = std::stoi(pg->string_val(), &used);  // as ASTRA-sim reads it
          ASSERT_EQ(used, pg->string_val().size()) << pg->string_val();
          ASSERT_TRUE(groups.count(id)) << "pg_name " << id << " is not in comm_groups.json";
          users[id].insert(rank);
          EXPECT_TRUE(descs.emplace(id, desc->string_val()).first->second == desc->string_val()) << id;
          break;
        }
        case chakra::COMM_SEND_NODE:
        case chakra::COMM_RECV_NODE: {
          const bool send = n.type() == chakra::COMM_SEND_NODE;
          const auto* peer = attr(n, send ? "comm_dst" : "comm_src");
          const auto* size = attr(n, "comm_size");
          const auto* tag = attr(n, "comm_tag");
          ASSERT_TRUE(peer && size && tag);
          EXPECT_TRUE(peer->int32_val() >= 0 && peer->int32_val() < k_world && peer->int32_val() != rank);
          EXPECT_GT(size->int64_val(), 0);
          EXPECT_GE(tag->int32_val(), 0);
          sends += send;
          p2p[{send ? rank : peer->int32_val(), send ? peer->int32_val() : rank, tag->int32_val()}] += send ? 1 : -1;
          break;
        }
        default:
          ADD_FAILURE() << "node type " << n.type();
      }
    }
  }
  EXPECT_GT(computes, 0);
  EXPECT_GT(collectives, 0);
  for (const auto& [key, balance] : p2p)
    EXPECT_EQ(balance, 0) << "send " << std::get<0>(key) << "->" << std::get<1>(key);
  // Each group of the file is used, by exactly its ranks, and named by its lowest rank.
  EXPECT_EQ(users.size(), groups.size());
  for (const auto& [id, ranks] : groups) {
    const auto u = users.find(id);
    ASSERT_NE(u, users.end()) << "group " << id << " is used by no node";
    EXPECT_EQ(std::vector<int>(u->second.begin(), u->second.end()), ranks) << "group " << id;
    EXPECT_EQ(descs[id].substr(descs[id].find('@') + 1), std::to_string(ranks.front())) << descs[id];
  }
  if (sends == 0) ADD_FAILURE() << "no pipeline sends";
}

TEST(ChakraInterop, ExportsReadWithChakrasSchemaAndAstraSimsGroups) {
  const std::vector<std::vector<std::string>> cases{
      {},
      {"parallel.zero=2", "parallel.zero_shard_size=2"},
      {"parallel.cp=2", "parallel.tp=1"},
      {"model.experts=16", "model.top_k=2", "model.moe_ffn_hidden=1024", "parallel.ep=4"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    check_export(export_step("chakra-interop-" + std::to_string(i), cases[i]));
  }
}

// The default scenario's groups: TP pairs and data-parallel groups of four, numbered from 1 by
// kind then lowest rank (dp before tp).
TEST(ChakraInterop, GroupsAreNumberedByKindThenLowestRank) {
  const fs::path dir = export_step("chakra-interop-groups", {});
  const std::map<int, std::vector<int>> groups = read_comm_groups(dir / "comm_groups.json");
  ASSERT_EQ(groups.size(), 4u + 8u);  // dp: 2 stages x 2 TP ranks; tp: 8 pairs
  // Megatron-Core's order tp-cp-ep-dp-pp: stage 0 on ranks 0-7, its dp groups the even and the
  // odd ranks; stage 1's dp groups (8, 10, ...) and (9, 11, ...) are numbers 3 and 4.
  EXPECT_EQ(groups.at(1), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(groups.at(2), (std::vector<int>{1, 3, 5, 7}));
  EXPECT_EQ(groups.at(3), (std::vector<int>{8, 10, 12, 14}));
  EXPECT_EQ(groups.at(5), (std::vector<int>{0, 1}));
  EXPECT_EQ(groups.at(12), (std::vector<int>{14, 15}));
}

std::string crc_of(const std::string& bytes) {
  return std::to_string(
      ::crc32(::crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

// An export rewritten as trainsim wrote them before (pg_name the readable name, peers and tags
// int64, no tensor_size and no num_ops of 0, a version-1 manifest without comm groups) and the
// export itself replay in the same time, to the bit.
TEST(ChakraInterop, OldAndNewExportsReplayAlike) {
  const fs::path dir = export_step("chakra-interop-old", {"parallel.zero=2", "parallel.zero_shard_size=2"});
  const fs::path old_dir = dir.parent_path() / "old";
  fs::create_directories(old_dir);
  nlohmann::ordered_json m{{"format", "trainsim chakra export"},
                           {"version", 1},
                           {"prefix", "step"},
                           {"world_size", k_world},
                           {"ranks", nlohmann::ordered_json::array()}};
  for (int rank = 0; rank < k_world; ++rank) {
    const std::string name = "step." + std::to_string(rank) + ".et";
    const std::string bytes = read_file(dir / name);
    google::protobuf::io::ArrayInputStream in(bytes.data(), static_cast<int>(bytes.size()));
    std::ostringstream out;
    chakra::GlobalMetadata meta;
    ASSERT_TRUE(google::protobuf::util::ParseDelimitedFromZeroCopyStream(&meta, &in, nullptr));
    ASSERT_TRUE(google::protobuf::util::SerializeDelimitedToOstream(meta, &out));
    for (chakra::Node n; google::protobuf::util::ParseDelimitedFromZeroCopyStream(&n, &in, nullptr); n.Clear()) {
      chakra::Node old = n;
      old.clear_attr();
      std::string desc;
      for (const chakra::Attribute& a : n.attr())
        if (a.name() == "pg_desc") desc = a.string_val();
      for (const chakra::Attribute& a : n.attr()) {
        if (a.name() == "tensor_size" || a.name() == "pg_desc" || (a.name() == "num_ops" && a.int64_val() == 0))
          continue;
        chakra::Attribute* b = old.add_attr();
        *b = a;
        if (a.name() == "pg_name") b->set_string_val(desc);
        if (a.value_case() == chakra::Attribute::kInt32Val) b->set_int64_val(a.int32_val());
      }
      ASSERT_TRUE(google::protobuf::util::SerializeDelimitedToOstream(old, &out));
    }
    std::ofstream(old_dir / name, std::ios::binary) << out.str();
    m["ranks"].push_back(
        {{"rank", rank}, {"file", name}, {"bytes", out.str().size()}, {"crc32", std::stoul(crc_of(out.str()))}});
  }
  std::ofstream(old_dir / "chakra-export.json") << m.dump(1) << "\n";
  const double now = replay_s((dir / "step").string());
  const double before = replay_s((old_dir / "step").string());
  EXPECT_GT(now, 0);
  EXPECT_EQ(now, before);
}

// A comm-group configuration changed since the export is refused by replay, like a trace.
TEST(ChakraInterop, ReplayRefusesAChangedCommGroupFile) {
  const fs::path dir = export_step("chakra-interop-changed", {});
  std::ofstream(dir / "comm_groups.json", std::ios::app) << " ";
  const auto r = run_trainsim({"replay", (dir / "step").string(), "--cluster", "dgx-h100", "--nodes", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("comm_groups.json: is not the file the export wrote"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace trainsim::workload
