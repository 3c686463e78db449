// `trainsim drill` as a user runs it: the table, --json, --trace, reruns, and each bad input
// refused with one line and exit 2.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/run_trainsim.hpp"

namespace trainsim::testing {
namespace {

const std::string k_tiny = source_path("tests/trace/tiny.ini");

TEST(DrillCli, PrintsTheRecoveryAndScalingTable) {
  const RunResult r = run_trainsim({"drill", k_tiny, "--steps", "30", "--omit", "rng,cursor"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("trainsim drill:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("global batch 8 samples"), std::string::npos) << r.out;  // tiny.ini: 1 x 4 x dp 2
  EXPECT_NE(r.out.find("recovered"), std::string::npos);
  EXPECT_NE(r.out.find("omit rng"), std::string::npos);
  EXPECT_NE(r.out.find("omit cursor"), std::string::npos);
  EXPECT_NE(r.out.find("same batch dp"), std::string::npos);
  EXPECT_NE(r.out.find("not simulated"), std::string::npos);  // TP and PP said to leave the math as it is
}

TEST(DrillCli, JsonTraceAndRerunsAreIdentical) {
  const std::string dir = ::testing::TempDir();
  const std::string trace = dir + "/drill_cli.h5";
  std::filesystem::remove(trace);
  const RunResult a =
      run_trainsim({"drill", k_tiny, "--steps", "20", "--json", "--trace", trace, "--omit", "scheduler"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_TRUE(std::filesystem::exists(trace));
  const RunResult b = run_trainsim({"drill", k_tiny, "--steps", "20", "--json", "--omit", "scheduler"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  nlohmann::json ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  ja.erase("wall_s");
  jb.erase("wall_s");
  EXPECT_EQ(ja, jb);
  EXPECT_EQ(ja["global_batch"].get<long long>(),
            ja["micro_batch"].get<long long>() * ja["grad_accum"].get<long long>() * ja["dp"].get<long long>());
  EXPECT_EQ(ja["runs"][0]["name"], "recovered");
  EXPECT_TRUE(ja["runs"][0]["bit_identical"].get<bool>());
  EXPECT_EQ(ja["runs"][1]["name"], "omit scheduler");
  EXPECT_FALSE(ja["runs"][1]["bit_identical"].get<bool>());
  EXPECT_EQ(ja["uninterrupted"]["loss"].size(), 20u);
}

TEST(DrillCli, ReplaysTheRunSimulationsFailures) {
  // The tiny scenario over 3 days, a node failing every 2 days on average (test_notebooks.py's run).
  const RunResult r = run_trainsim({"drill", k_tiny, "--steps", "20", "--json", "--set", "run.duration=3d", "--set",
                                    "failures.mtbf=2d", "--set", "checkpoint.write_bandwidth=2MB/s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["fail_source"], "run simulation");
  EXPECT_FALSE(j["fail_at"].empty());
  EXPECT_GT(j["run_failures"].get<long long>(), 0);
  EXPECT_TRUE(j["runs"][0]["bit_identical"].get<bool>());
  EXPECT_EQ(j["runs"][0]["restarts"].get<long long>(), static_cast<long long>(j["fail_at"].size()));
}

void expect_refused(const std::vector<std::string>& extra, const std::string& option, const std::string& value) {
  std::vector<std::string> args{"drill", k_tiny};
  args.insert(args.end(), extra.begin(), extra.end());
  const RunResult r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(option), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'" + value + "'"), std::string::npos) << r.err;
}

TEST(DrillCli, BadOmitValueExits2) {
  expect_refused({"--omit", "weights"}, "--omit", "weights");
}
TEST(DrillCli, ZeroStepsExits2) {
  expect_refused({"--steps", "0"}, "--steps", "0");
}
TEST(DrillCli, NonNumericStepsExits2) {
  expect_refused({"--steps", "ten"}, "--steps", "ten");
}
TEST(DrillCli, FailAtBeyondStepsExits2) {
  expect_refused({"--steps", "20", "--fail-at", "5,21"}, "--fail-at", "21");
}
TEST(DrillCli, FailAtZeroExits2) {
  expect_refused({"--fail-at", "0"}, "--fail-at", "0");
}
TEST(DrillCli, ZeroCheckpointIntervalExits2) {
  expect_refused({"--checkpoint-every", "0"}, "--checkpoint-every", "0");
}
TEST(DrillCli, TraceIntoMissingFolderExits2) {
  expect_refused({"--trace", "/nonexistent-folder/x.h5"}, "--trace", "/nonexistent-folder/x.h5");
}

}  // namespace
}  // namespace trainsim::testing
