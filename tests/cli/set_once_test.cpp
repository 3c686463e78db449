// A key given twice with --set was taken silently, the last value winning (`--set parallel.tp=1
// --set parallel.tp=2` simulated tp 2): every command that takes --set refuses it, with one line
// naming the key, the later value and the rule, exit code 2 and nothing on stdout.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;
using testing::source_path;

const std::string k_tiny = source_path("tests/trace/tiny.ini");

void expect_set_twice(const std::vector<std::string>& args, const std::string& key) {
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 2) << args.front() << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("--set: " + key + " = "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("set twice"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "") << args.front();
}

TEST(SetOnce, AKeySetTwiceIsRefusedByEveryCommandTakingSet) {
  const std::vector<std::string> twice = {"--set", "parallel.tp=1", "--set", "parallel.tp=2"};
  for (const std::string command : {"run", "memory", "layer", "check", "plan", "scale", "drill", "topology"}) {
    std::vector<std::string> args = {command, k_tiny};
    args.insert(args.end(), twice.begin(), twice.end());
    expect_set_twice(args, "parallel.tp");
  }
  std::vector<std::string> batch = {"batch", k_tiny, "--out", ::testing::TempDir() + "set_once_batch"};
  batch.insert(batch.end(), twice.begin(), twice.end());
  expect_set_twice(batch, "parallel.tp");
  expect_set_twice({"collective", k_tiny, "--set", "cluster.nodes=4", "--set",
                    "cluster.nodes=2"},
                   "cluster.nodes");
}

TEST(SetOnce, OnceByItsMegatronNameAndOnceByTrainsimsIsTwice) {
  expect_set_twice({"run", k_tiny, "--set", "parallel.tp=2", "--set", "parallel.tensor_model_parallel_size=1"},
                   "parallel.tp");
  // Different keys, and a key set once, stay accepted.
  const auto r = run_trainsim({"memory", k_tiny, "--set", "parallel.tp=2", "--set", "parallel.pp=2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace trainsim
