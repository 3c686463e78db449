// `trainsim plan`: every fitting layout simulated and ranked; the ranking agrees with
// `trainsim run` on the same layout, and a rerun reuses the simulated points.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;
using testing::source_path;

// Llama 3 8B on 16 H100 (2 nodes); the default scenario's tp 8 and grad_accum 16 with pp 2
// give dp 1: a global batch of 16 samples.
std::vector<std::string> small_plan(const std::string& out) {
  return {"plan",   source_path("scenarios/default.ini"),
          "--set",  "model.preset=llama3-8b",
          "--set",  "cluster.nodes=2",
          "--set",  "parallel.pp=2",
          "--jobs", "2",
          "--out",  out};
}

TEST(PlanCommand, RanksEveryFittingLayoutByThroughput) {
  const std::string out = testing::write_temp_file("plan-out", "") + "-dir";
  std::filesystem::remove_all(out);  // a previous run's points (of another build) would be reused
  std::vector<std::string> args = small_plan(out);
  args.push_back("--json");
  const auto r = run_trainsim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& layouts = j["layouts"];
  ASSERT_GT(layouts.size(), 5U);
  EXPECT_EQ(j["considered"].get<int>(), j["refused"].get<int>() + j["too_big"].get<int>() + j["simulated"].get<int>());
  EXPECT_EQ(layouts.size(), j["simulated"].get<size_t>());
  for (size_t i = 1; i < layouts.size(); ++i)
    EXPECT_GE(layouts[i - 1]["tokens_per_s"].get<double>(), layouts[i]["tokens_per_s"].get<double>());
  for (const auto& l : layouts) {
    EXPECT_LE(l["peak_memory_bytes"].get<double>(), 80.0 * 1024 * 1024 * 1024) << l.dump();
    // The split multiplies out to the 16 GPUs, the batch to the scenario's 16 samples.
    EXPECT_EQ(std::stoi(l["parallel.tp"].get<std::string>()) * std::stoi(l["parallel.pp"].get<std::string>()) *
                  std::stoi(l["parallel.dp"].get<std::string>()),
              16);
    EXPECT_EQ(std::stoi(l["training.micro_batch"].get<std::string>()) *
                  std::stoi(l["training.grad_accum"].get<std::string>()) *
                  std::stoi(l["parallel.dp"].get<std::string>()),
              16);
  }
  EXPECT_GE(j["own_rank"].get<int>(), 1);
  EXPECT_TRUE(std::filesystem::exists(out + "/results.csv"));

  // The best layout, run on its own, gives the throughput the plan ranked it by.
  std::vector<std::string> run{"run",
                               source_path("scenarios/default.ini"),
                               "--json",
                               "--set",
                               "model.preset=llama3-8b",
                               "--set",
                               "cluster.nodes=2"};
  for (const auto& [key, value] : layouts[0].items())
    if (key.find('.') != std::string::npos) {
      run.push_back("--set");
      run.push_back(key + "=" + value.get<std::string>());
    }
  const auto best = run_trainsim(run);
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(best.out)["tokens_per_s"].get<double>(),
                   layouts[0]["tokens_per_s"].get<double>());

  // A rerun reuses every point and prints the same ranking.
  const auto again = run_trainsim(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, r.out);

  const auto text = run_trainsim(small_plan(out));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("rank"), std::string::npos);
  EXPECT_NE(text.out.find("the scenario's own split"), std::string::npos);
}

// A scenario's run-level simulation is left out: the same layouts and throughputs.
TEST(PlanCommand, RanksStepsEvenForAScenarioWithARun) {
  std::vector<std::string> plain = small_plan(testing::write_temp_file("plan-plain", "") + "-dir");
  std::vector<std::string> with_run = small_plan(testing::write_temp_file("plan-run", "") + "-dir");
  plain.push_back("--json");
  with_run.insert(with_run.end(), {"--json", "--set", "run.duration=1h", "--set", "failures.mtbf=10d"});
  const auto a = run_trainsim(plain);
  const auto b = run_trainsim(with_run);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(a.out)["layouts"], nlohmann::json::parse(b.out)["layouts"]);
}

TEST(PlanCommand, RejectsBadOptions) {
  std::vector<std::string> args = small_plan(testing::write_temp_file("plan-bad", "") + "-dir");
  args.insert(args.end(), {"--top", "0"});
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--top"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace trainsim
