// Inputs that passed validation and then ran away (issue 19, item 1), each through the real
// CLI under a 4 GiB address-space limit and a 20 s timeout: each is refused up front (exit 2,
// one line naming the key or option, the limit and why) or finishes within both.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/address_sanitizer.hpp"
#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim_limited;

constexpr long k_memory_kib = 4L * 1024 * 1024;  // 4 GiB of address space
constexpr int k_seconds = 20;

const std::string k_default = testing::source_path("scenarios/default.ini");

class ResourceLimits : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef TRAINSIM_UNDER_ASAN
    GTEST_SKIP() << "ulimit -v cannot hold an AddressSanitizer build";
#endif
  }
};

testing::RunResult limited(const std::vector<std::string>& args) {
  return run_trainsim_limited(args, k_memory_kib, k_seconds);
}

// Refused before anything runs: exit 2, one line with every one of `words`.
void expect_refused(const std::vector<std::string>& args, const std::vector<std::string>& words) {
  const auto r = limited(args);
  ASSERT_NE(r.exit_code, 124) << "timed out";
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const std::string& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << w << " in " << r.err;
}

// Counts past an int and factors are named as given, with the rule: boost's own parse said
// "the argument ('1e9') for option '--gpus' is invalid", and -f 1.0000001 was named '1'.
TEST_F(ResourceLimits, CollectiveCountsAreNamedAsGiven) {
  expect_refused({"collective", "--gpus", "1e9"}, {"--gpus = '1e9'", "must be >= 1 (a whole number of GPUs)"});
  expect_refused({"collective", "--gpus", "99999999999"}, {"--gpus = '99999999999'", "at most 131072 GPUs"});
  expect_refused({"collective", "-b", "1", "-e", "1T", "-f", "1.0000001"},
                 {"--stepfactor = '1.0000001'", "more than 1000 sizes"});
  expect_refused({"collective", "-f", "x"}, {"--stepfactor = 'x'", "must be a number > 1"});
}

TEST_F(ResourceLimits, CollectiveFromZeroBytes) {
  expect_refused({"collective", "-b", "0"}, {"--minbytes", "must be >= 1", "never grows"});
}

// A file without end is refused unread where it is a device, at the reader's cap where it is a
// pipe: tests/cli/endless_input_test.cpp.

TEST_F(ResourceLimits, CollectiveOfZeroBytesOnly) {
  const auto r = limited({"collective", "-b", "0", "-e", "0", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).size(), 1u) << r.out;
}

TEST_F(ResourceLimits, CollectiveOnAHundredMillionGpus) {
  expect_refused({"collective", "--gpus", "100000000"}, {"--gpus", "at most 131072", "2^17"});
  expect_refused({"collective", "--gpus", "131073"}, {"--gpus", "at most 131072"});
}

// Each limit of docs/outputs-and-limits.md's table at the limit itself (issue 54: `collective --gpus 524288`,
// under the old 2^20 limit, aborted in SimGrid's stack allocation under this memory limit).
// A minute where the answer is a simulation of every GPU (16 s measured on a quiet 2-core
// machine: tests run two at a time).
// `before`: shell commands run first (the stub sbatch of the Slurm case put on PATH).
testing::RunResult at_limit(const std::vector<std::string>& args, const std::string& before = "") {
  const auto r = before.empty() ? run_trainsim_limited(args, k_memory_kib, 60)
                                : testing::run_trainsim_after(before + "ulimit -v " + std::to_string(k_memory_kib) +
                                                                  " && exec timeout -k 5 60 ",
                                                              args);
  EXPECT_NE(r.exit_code, 124) << "timed out";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r;
}

TEST_F(ResourceLimits, CollectiveAtItsLargestCluster) {
  const auto r = at_limit({"collective", "--gpus", "131072", "-b", "1G", "-e", "1G", "--json"});
  EXPECT_EQ(nlohmann::json::parse(r.out).size(), 1u) << r.out;
}

TEST_F(ResourceLimits, AllToAllAtItsLargestGroup) {
  at_limit({"collective", "--op", "alltoall", "--gpus", "1024", "-b", "1G", "-e", "1G"});
  expect_refused({"collective", "--op", "alltoall", "--gpus", "1025"}, {"--gpus", "1024"});
}

TEST_F(ResourceLimits, CollectiveSizesAtTheirLimits) {
  at_limit({"collective", "-b", "1T", "-e", "1T"});
  // 1,000 rows exactly (each size floor(the last x 1.01), from 1,000 B: the 1,000th is
  // 19,742,139 B, the 1,001st 19,939,560 B).
  const auto r = at_limit({"collective", "-b", "1000", "-e", "19742139", "-f", "1.01", "--json"});
  EXPECT_EQ(nlohmann::json::parse(r.out).size(), 1000u);
  expect_refused({"collective", "-b", "1000", "-e", "19939560", "-f", "1.01"}, {"--stepfactor", "more than 1000 sizes"});
}

TEST_F(ResourceLimits, RunOnTheLargestCluster) {
  const auto r = at_limit({"run", testing::source_path("scenarios/examples/llama3-405b-16k-h100.ini"), "--set",
                           "cluster.nodes=131072", "--json"});  // 2^20 GPUs
  EXPECT_GT(nlohmann::json::parse(r.out)["step_time_s"].get<double>(), 0);
  expect_refused({"run", testing::source_path("scenarios/examples/llama3-405b-16k-h100.ini"), "--set",
                  "cluster.nodes=131073"},
                 {"cluster.nodes", "1048576"});
}

// --nodes past an int or not an integer is named as given with the limit (boost's own parse
// said "the argument ('1e9') for option '--nodes' is invalid").
// run --full builds every GPU, as collective and replay do: at 2^20 GPUs it passed 4.8 GB in its
// first minute. Past 2^17 it is refused before anything is simulated; without --full it runs.
TEST_F(ResourceLimits, RunFullPastTheFullPlatformLimitIsRefused) {
  expect_refused({"run", testing::source_path("scenarios/default.ini"), "--full", "--set", "cluster.nodes=16388"},
                 {"--full", "the cluster has 131104 GPUs", "at most 131072"});
}

TEST_F(ResourceLimits, ReplayNodeCountsAreNamedAsGiven) {
  const std::string dir = testing::write_temp_file("two-ranks-n.d", "") + "x";
  const std::string two = testing::write_temp_file(
      "two-ranks-n.ini", "[model]\npreset = llama3-8b\nlayers = 2\n[parallel]\ntp = 2\n[cluster]\npreset = dgx-h100\n"
                         "nodes = 1\ngpus_per_node = 2\n");
  ASSERT_EQ(testing::run_trainsim({"run", two, "--chakra-out", dir}).exit_code, 0);
  for (const char* nodes : {"1e9", "99999999999", "4294967297"})
    expect_refused({"replay", dir + "/step", "--nodes", nodes},
                   {std::string("--nodes = '") + nodes + "'", "must be 1 to 16384"});
}

TEST_F(ResourceLimits, ReplayOfTwoRanksOnTheLargestCluster) {
  // The replay builds every GPU of --nodes, whatever the ranks: 16,384 DGX H100 nodes, 2^17 GPUs.
  const std::string dir = testing::write_temp_file("two-ranks.d", "") + "x";
  const std::string two = testing::write_temp_file(
      "two-ranks.ini", "[model]\npreset = llama3-8b\nlayers = 2\n[parallel]\ntp = 2\n[cluster]\npreset = dgx-h100\n"
                       "nodes = 1\ngpus_per_node = 2\n");
  ASSERT_EQ(testing::run_trainsim({"run", two, "--chakra-out", dir}).exit_code, 0);
  at_limit({"replay", dir + "/step", "--cluster", "dgx-h100", "--nodes", "16384"});
  expect_refused({"replay", dir + "/step", "--cluster", "dgx-h100", "--nodes", "16385"},
                 {"--nodes", "must be 1 to 16384", "131072 GPUs"});
}

TEST_F(ResourceLimits, SweepOfAMillionPointsIsPlannedWithinTheLimit) {
  // Planned and written for Slurm (a manifest of some 225 MB; 12 s and 2.6 GB measured), not
  // computed: computing takes as long as its points.
  const std::string sweep = testing::write_temp_file(
      "million.ini", "[sweep]\nbase = " + k_default + "\n[vary]\ncluster.nodes = 1..1000 +1\nrun.seed = 1..1000 +1\n");
  const std::string out = testing::write_temp_file("million.d", "") + "x";
  // Submitted to an sbatch that only answers a job id.
  const std::string stub = testing::write_temp_file("stub.d", "") + "x";
  std::filesystem::create_directories(stub);
  std::ofstream(stub + "/sbatch") << "#!/bin/sh\necho 1\n";
  std::filesystem::permissions(stub + "/sbatch", std::filesystem::perms::owner_all);
  at_limit({"sweep", sweep, "--yes", "--slurm", "--out", out}, "export PATH='" + stub + "':\"$PATH\"; ");
  std::filesystem::remove_all(out);
  const std::string more = testing::write_temp_file(
      "million-and-one.ini",
      "[sweep]\nbase = " + k_default + "\n[vary]\ncluster.nodes = 1..1001 +1\nrun.seed = 1..1000 +1\n");
  expect_refused({"sweep", more, "--yes", "--out", out}, {"vary", "at most 1000000 points"});
}

TEST_F(ResourceLimits, CollectiveOnNoGpus) {
  expect_refused({"collective", "--gpus", "0"}, {"--gpus", "must be >= 1"});
}

TEST_F(ResourceLimits, CollectiveWithEndlessRows) {
  expect_refused({"collective", "-b", "1", "-e", "1G", "-f", "1.0001"}, {"--stepfactor", "more than 1000 sizes"});
}

TEST_F(ResourceLimits, AMillionLayers) {
  expect_refused({"run", k_default, "--set", "model.layers=1000000"}, {"model.layers", "from 1 to 4096", "32 times"});
}

TEST_F(ResourceLimits, ManyExpertsAndModules) {
  const std::string moe = testing::source_path("scenarios/examples/mixtral-8x7b-ep.ini");
  expect_refused({"run", moe, "--set", "model.experts=100000000"}, {"model.experts", "from 1 to 16384"});
  expect_refused({"run", moe, "--set", "model.mtp_depth=1000000"}, {"model.mtp_depth", "from 0 to 64"});
}

TEST_F(ResourceLimits, TheLargestModelFinishes) {
  // Every size at its limit at once, with drawn expert loads (a loop over layers and experts).
  const auto r = limited({"run", testing::source_path("scenarios/examples/mixtral-8x7b-ep.ini"), "--json", "--set",
                          "model.layers=4096", "--set", "model.experts=16384", "--set", "model.expert_imbalance=0.5",
                          "--set", "model.mtp_depth=64"});
  ASSERT_NE(r.exit_code, 124) << "timed out";
  EXPECT_NE(r.exit_code, 1) << r.err;  // simulated, or refused for memory; never an internal error
}

TEST_F(ResourceLimits, GradAccumOfAHundredMillion) {
  expect_refused({"run", k_default, "--set", "training.grad_accum=100000000"},
                 {"training.grad_accum", "from 1 to 16384", "micro-batches are simulated"});
}

TEST_F(ResourceLimits, RunOfAMillionDays) {
  expect_refused({"run", k_default, "--set", "run.duration=1000000d"}, {"run.duration", "at most 100 years"});
}

TEST_F(ResourceLimits, FailureEverySecondForThreeDays) {
  expect_refused({"run", k_default, "--set", "run.duration=3d", "--set", "failures.mtbf=1s"},
                 {"failures.mtbf", "at most 1e+06 run events"});
}

TEST_F(ResourceLimits, AMillionSteps) {
  expect_refused({"run", k_default, "--set", "run.steps=1000000"}, {"run.steps", "from 1 to 16384"});
}

// A century without failures or checkpoints is one stretch of training: instant.
TEST_F(ResourceLimits, CenturyWithoutEventsRuns) {
  const auto r = limited({"run", k_default, "--set", "run.duration=36525d", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(nlohmann::json::parse(r.out)["run"]["steps_completed"].get<double>(), 6e8);
}

// 943,000 checkpoints (one every step for 160 days): more records than are kept, counted all
// the same, in bounded memory.
TEST_F(ResourceLimits, CheckpointEveryStepFor160DaysRunsInBoundedMemory) {
  const auto r = limited({"run", k_default, "--set", "run.duration=160d", "--set", "checkpoint.interval=1steps",
                          "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(nlohmann::json::parse(r.out)["run"]["checkpoints_written"].get<double>(), 900000) << r.out;
}

// Ten times as long: ten million checkpoints, refused once the step's time is known.
TEST_F(ResourceLimits, CheckpointEveryStepFor1600DaysIsRefused) {
  expect_refused({"run", k_default, "--set", "run.duration=1600d", "--set", "checkpoint.interval=1steps"},
                 {"checkpoint.interval = '1steps'", "checkpoints", "at most 1e+06 events"});
}

TEST_F(ResourceLimits, ManyStepsRunWithinTheLimits) {
  const auto r = limited({"run", k_default, "--set", "run.steps=64", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["steps"].get<int>(), 64);
}

}  // namespace
}  // namespace trainsim
