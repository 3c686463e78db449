// parallel.pipeline_layout through the real CLI: the layout places the layers, and a layout
// that does not fit the model or the pipeline is a one-line refusal.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

const std::string k_default = testing::source_path("scenarios/default.ini");  // Llama 3 70B (80 layers), pp 4

testing::RunResult memory(const std::vector<std::string>& sets) {
  std::vector<std::string> args{"memory", k_default, "--json"};
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  return testing::run_trainsim(args);
}

TEST(PipelineLayoutCli, TheLayoutPlacesTheLayers) {
  const auto r = memory({"parallel.pipeline_layout=Et*30|t*20|t*20|t*10L"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto stages = nlohmann::json::parse(r.out)["stages"];
  ASSERT_EQ(stages.size(), 4u);
  const int expected[] = {30, 20, 20, 10};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(stages[i]["layers"].get<int>(), expected[i]) << i;
}

TEST(PipelineLayoutCli, EmptyChunksRunAndCostTheirBubble) {
  // Three of the eight chunks empty and one holding only the loss (interleaved, pp 4 x 2):
  // the step runs, and the idle chunks leave a larger bubble than the balanced split.
  const auto run = [](const std::string& layout) {
    const auto r = testing::run_trainsim({"run", k_default, "--json", "--set", "parallel.virtual_stages=2", "--set",
                                          "parallel.schedule=interleaved", "--set",
                                          "parallel.pipeline_layout=" + layout});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out)["bubble_fraction"].get<double>() : -1.0;
  };
  const double balanced = run("none");
  const double lopsided = run("E|t*27|t*27|t*26||||L");
  EXPECT_GT(balanced, 0.0);
  EXPECT_GT(lopsided, 2 * balanced);
}

// The default scenario with `parallel.pipeline_layout = layout`, as a file of its own.
std::string scenario_with(const std::string& layout) {
  std::ifstream in(k_default);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  const std::string section = "[parallel]\n";
  s.insert(s.find(section) + section.size(), "pipeline_layout = " + layout + "\n");
  return testing::write_temp_file("layout.ini", s);
}

TEST(PipelineLayoutCli, RefusalsAreOneLineNamingFileKeyValueAndRule) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"Et*40|t*40L", "has 2 stages, but parallel.pp x parallel.virtual_stages = 4 x 1 = 4"},
      {"Et*20|t*20|t*20|t*19L", "has 79 t (transformer layers), but model.layers = 80"},
      {"Et*20|t*20|t*20|t*20mL", "has 1 m (MTP layers), but model.mtp_depth = 0"},
      {"tEt*19|t*20|t*20|t*20L", "E (the embedding) must open the first stage"},
      {"Et*20|t*20|t*20|Lt*20", "L (the loss) must close the last stage"},
      {"E(t*20|*3t*20L", "a '(' without its ')'"},
  };
  for (const auto& [layout, words] : cases) {
    const std::string file = scenario_with(layout);
    const auto r = testing::run_trainsim({"memory", file});
    EXPECT_EQ(r.exit_code, 2) << layout;
    EXPECT_EQ(r.out, "") << layout;
    const std::string line = file + ": parallel.pipeline_layout = '" + layout + "': " + words;
    EXPECT_NE(r.err.find(line), std::string::npos) << line << " in " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  }
}

TEST(PipelineLayoutCli, AnEvenSplitBesideALayoutIsRefused) {
  // Megatron-Core refuses account_for_*_in_pipeline_split beside a layout (transformer_config.py).
  const auto r = memory({"parallel.pipeline_layout=Et*20|t*20|t*20|t*20L", "parallel.stage_split=even-with-ends"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("parallel.stage_split"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

}  // namespace
}  // namespace trainsim
