// trainsim run --chakra-out through the real executable: a simulated step written as Chakra
// traces, read back by the reader, and replayed on the same cluster in the step's time.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sim/workload/workload.hpp"
#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"
#include "workload/export_scenario.hpp"

namespace trainsim::workload {
namespace {

using trainsim::testing::run_trainsim;

std::string scenario() {
  return trainsim::testing::write_temp_file("chakra-export.ini", k_export_scenario);
}

struct Exported {
  double step_s = 0;
  std::string prefix;
};

Exported export_step(const std::string& dir_name, const std::vector<std::string>& sets) {
  const auto dir = trainsim::testing::fresh_test_dir(dir_name);
  std::vector<std::string> args{"run", scenario(), "--json", "--chakra-out", (dir / "out").string()};
  for (const std::string& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return {nlohmann::json::parse(r.out)["step_time_s"].get<double>(), (dir / "out" / "step").string()};
}

double replay_s(const std::string& prefix) {
  const auto r = run_trainsim({"replay", prefix, "--cluster", "dgx-h100", "--nodes", "2", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out)["replay_time_s"].get<double>();
}

// Export then replay gives the step's time, within 2 %, for each kind of communication the
// step plays: TP all-reduces and pipeline transfers with ZeRO-1's reduce-scatter and gather,
// the interleaved schedule, TP-overlapped GEMMs, ZeRO-3's per-unit gathers, context
// parallelism's ring exchange, HSDP's two-phase reduction, MoE all-to-alls (with expert TP).
TEST(ChakraExport, ReplayReproducesTheStep) {
  const std::vector<std::vector<std::string>> cases{
      {},
      {"parallel.schedule=interleaved", "parallel.virtual_stages=2"},
      {"parallel.sequence_parallel=true", "parallel.tp_comm_overlap=true"},
      {"parallel.zero=3"},
      {"parallel.cp=2", "parallel.tp=1"},
      {"parallel.zero=2", "parallel.zero_shard_size=2"},
      {"model.experts=16", "model.top_k=2", "model.moe_ffn_hidden=1024", "parallel.ep=4"},
      {"model.experts=16", "model.top_k=2", "model.moe_ffn_hidden=1024", "parallel.ep=8", "parallel.tp=1"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Exported e = export_step("chakra-export-" + std::to_string(i), cases[i]);
    const double replayed = replay_s(e.prefix);
    EXPECT_NEAR(replayed / e.step_s, 1.0, 0.02) << "case " << i << ": step " << e.step_s << " s, replay " << replayed;
  }
}

// What the files hold: every rank, the reader's rules met with nothing tolerated, pipeline
// sends matched by receives, collectives on the groups the rank mapping gives.
TEST(ChakraExport, FilesAreWhatTheReaderExpects) {
  const Exported e = export_step("chakra-export-files", {});
  const Workload w = read_workload(e.prefix);
  ASSERT_EQ(w.ranks.size(), 16u);
  EXPECT_EQ(w.tolerated().describe(), "");
  std::map<std::string, std::string> groups;  // pg_desc -> pg_name
  std::uint64_t sends = 0, receives = 0;
  for (const RankTrace& t : w.ranks) {
    EXPECT_EQ(t.version, "0.0.4");
    for (const ChakraNode& n : t.nodes) {
      if (n.kind == NodeKind::collective) groups[n.pg_desc] = n.pg_name;
      sends += n.kind == NodeKind::send;
      receives += n.kind == NodeKind::recv;
    }
  }
  // 8 micro-batches each way between the two stages, on each of the 8 pipelines.
  EXPECT_EQ(sends, 2u * 8u * 8u);
  EXPECT_EQ(receives, sends);
  // Megatron-Core's rank order tp-cp-ep-dp-pp: TP pairs (0,1), (2,3), ...; data-parallel
  // groups of 4, one per TP rank and stage (stage 0 on ranks 0-7), described by their lowest
  // rank (pg_desc; pg_name is their number).
  EXPECT_TRUE(groups.count("tp@0") && groups.count("tp@14")) << groups.size();
  EXPECT_TRUE(groups.count("dp@0") && groups.count("dp@1") && groups.count("dp@8") && groups.count("dp@9"));
  EXPECT_EQ(w.group_ranks(groups["dp@1"]), (std::vector<int>{1, 3, 5, 7}));
  // The stage's compute adds up to its records: every node of rank 0 but the communication.
  std::uint64_t compute_us = 0;
  for (const ChakraNode& n : w.ranks[0].nodes)
    if (n.kind == NodeKind::compute) compute_us += static_cast<std::uint64_t>(std::llround(n.duration_s * 1e6));
  EXPECT_GT(compute_us, 0u);
  EXPECT_LT(compute_us * 1e-6, e.step_s);
}

// An all-gather's comm_size is each rank's input (ASTRA-sim's convention): the replay's
// gathers (ZeRO-1's gather of the updated parameters, groups of 4) move, in all, what every
// rank wrote summed: each group's output is its 4 members' inputs.
TEST(ChakraExport, AllGatherSizeIsEachRanksInput) {
  const Exported e = export_step("chakra-export-gather", {});
  const Workload w = read_workload(e.prefix);
  double written = 0;
  for (const RankTrace& t : w.ranks)
    for (const ChakraNode& n : t.nodes)
      if (n.kind == NodeKind::collective && n.comm_type == CommType::all_gather) written += n.comm_bytes;
  ASSERT_GT(written, 0);
  const auto r = run_trainsim({"replay", e.prefix, "--cluster", "dgx-h100", "--nodes", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json totals = nlohmann::json::parse(r.out)["comm_totals"]["allgather"];
  EXPECT_EQ(totals["count"], 4);  // one per data-parallel group
  EXPECT_NEAR(totals["bytes"].get<double>(), written, 4.0);
}

TEST(ChakraExport, RanksPicksTheFiles) {
  const auto dir = trainsim::testing::fresh_test_dir("chakra-export-ranks");
  const auto r = run_trainsim({"run", scenario(), "--chakra-out", dir.string(), "--ranks", "0-2,9"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(dir)) files.insert(f.path().filename().string());
  EXPECT_EQ(files, (std::set<std::string>{"step.0.et", "step.1.et", "step.2.et", "step.9.et", "chakra-export.json",
                                          "comm_groups.json"}));
  EXPECT_NE(r.err.find("wrote 4 Chakra trace(s)"), std::string::npos) << r.err;
}

TEST(ChakraExport, BadOptionsAreRefused) {
  const auto dir = trainsim::testing::fresh_test_dir("chakra-export-bad");
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--ranks", "0-3"}, "--ranks = '0-3': needs --chakra-out DIR"},
      {{"--chakra-out", dir.string(), "--ranks", "3-1"}, "--ranks = '3-1': a range must not run backwards"},
      {{"--chakra-out", dir.string(), "--ranks", "16"}, "--ranks = '16': the job has ranks 0 to 15"},
      {{"--chakra-out", dir.string(), "--ranks", "x"}, "--ranks = 'x': expected ranks and ranges like 0-7,12"},
      {{"--chakra-out", scenario()}, "--chakra-out"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args{"run", scenario()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = run_trainsim(args);
    EXPECT_EQ(r.exit_code, 2) << c.message;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

}  // namespace
}  // namespace trainsim::workload
