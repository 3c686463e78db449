#include <gtest/gtest.h>

#include <fstream>

#include "sim/core/error.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

std::vector<IniEntry> entries(std::initializer_list<std::pair<const char*, const char*>> kv) {
  std::vector<IniEntry> e;
  for (const auto& [k, v] : kv) e.push_back({k, v, "test.ini"});
  return e;
}

TEST(ScenarioLoader, PresetThenExplicitKeysOverride) {
  const Scenario s = load_scenario(
      entries(
          {{"model.seq_len", "4096"}, {"model.preset", "llama3-70b"}, {"cluster.nodes", "8"}, {"parallel.tp", "8"}}),
      "test.ini");
  EXPECT_EQ(s.model.name, "llama3-70b");
  EXPECT_EQ(s.model.layers, 80);
  EXPECT_EQ(s.model.seq_len, 4096);  // applied after the preset although written before it
  EXPECT_EQ(s.model.kv_heads, 8);
}

TEST(ScenarioLoader, DataParallelIsDerived) {
  const Scenario s = load_scenario(
      entries({{"model.preset", "llama3-8b"}, {"cluster.nodes", "4"}, {"parallel.tp", "4"}, {"parallel.pp", "2"}}),
      "test.ini");
  EXPECT_EQ(s.cluster.total_gpus(), 32);
  EXPECT_EQ(s.parallel.dp, 4);
}

TEST(ScenarioLoader, ExplicitShapeWithoutPreset) {
  const Scenario s = load_scenario(entries({{"model.layers", "4"},
                                            {"model.hidden", "512"},
                                            {"model.heads", "8"},
                                            {"model.ffn_hidden", "2048"},
                                            {"model.vocab", "1000"},
                                            {"model.seq_len", "128"},
                                            {"cluster.gpus_per_node", "2"}}),
                                   "test.ini");
  EXPECT_EQ(s.model.kv_heads, 8);  // defaults to heads
  EXPECT_EQ(s.parallel.dp, 2);
  EXPECT_EQ(s.model.name, "custom");
}

TEST(ScenarioLoader, ClusterPresetAndUnits) {
  const Scenario s = load_scenario(entries({{"model.preset", "llama3-8b"},
                                            {"cluster.preset", "dgx-a100"},
                                            {"cluster.gpu_memory", "40GiB"},
                                            {"cluster.nic_bandwidth", "100Gb/s"},
                                            {"cluster.nvlink_latency", "2us"}}),
                                   "test.ini");
  EXPECT_EQ(s.cluster.gpu.name, "a100-80g");
  EXPECT_DOUBLE_EQ(s.gpu_memory_bytes(), 40.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(s.cluster.nic_bandwidth_Bps, 12.5e9);
  EXPECT_DOUBLE_EQ(s.cluster.nvlink_latency_s, 2e-6);
  EXPECT_EQ(s.cluster.nics_per_node, 8);
}

TEST(ScenarioLoader, GpuMemoryOverrideSurvivesAGpuChangeInAnyOrder) {
  const Scenario s = load_scenario(
      entries({{"model.preset", "llama3-8b"}, {"cluster.gpu_memory", "24GB"}, {"cluster.gpu", "h200"}}), "test.ini");
  EXPECT_EQ(s.cluster.gpu.name, "h200");
  EXPECT_DOUBLE_EQ(s.gpu_memory_bytes(), 24e9);
}

TEST(ScenarioLoader, ErrorsNameFileKeyValueAndRule) {
  try {
    load_scenario(entries({{"model.preset", "llama3-8b"}, {"parallel.tp", "three"}}), "test.ini");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "test.ini");
    EXPECT_EQ(e.key(), "parallel.tp");
    EXPECT_EQ(e.value(), "three");
    EXPECT_EQ(std::string(e.what()), "test.ini: parallel.tp = 'three': expected an integer >= 1");
  }
}

TEST(ScenarioLoader, ListPiecesAndStepCountsMayHaveSpaces) {
  const Scenario s = load_scenario(entries({{"model.preset", "llama3-8b"},
                                            {"cluster.nodes", "2"},
                                            {"training.cuda_graphs", "attn , mlp"},
                                            {"variations.slow_gpu_ids", " 9 + 3,5 "},
                                            {"checkpoint.interval", "500 steps"}}),
                                   "test.ini");
  EXPECT_TRUE(s.training.cuda_graphs.has(GraphScope::attn));
  EXPECT_TRUE(s.training.cuda_graphs.has(GraphScope::mlp));
  EXPECT_EQ(s.variations.slow_gpu_ids, (std::vector<int>{3, 5, 9}));
  EXPECT_EQ(s.checkpoint.interval_steps, 500);
}

TEST(ScenarioLoader, OverridesReplaceFileValues) {
  const std::string path = testing::write_temp_file("s.ini", "[model]\npreset = llama3-8b\n[parallel]\ntp = 8\n");
  const Scenario s = load_scenario(path, {"parallel.tp=4", "parallel.pp=2"});
  EXPECT_EQ(s.parallel.tp, 4);
  EXPECT_EQ(s.parallel.pp, 2);
  EXPECT_EQ(s.parallel.dp, 1);
}

TEST(ScenarioLoader, EditorsByteOrderMarkAndCrlf) {
  // The default scenario as a Windows editor saves it: a UTF-8 byte-order mark, CRLF line ends.
  std::ifstream in(testing::source_path("scenarios/default.ini"));
  std::string text, line;
  while (std::getline(in, line)) text += line + "\r\n";
  const std::string path = testing::write_temp_file("windows.ini", "\xEF\xBB\xBF" + text);
  EXPECT_EQ(resolved_ini(load_scenario(path)),
            resolved_ini(load_scenario(testing::source_path("scenarios/default.ini"))));
}

TEST(ScenarioLoader, ResolvedTextLoadsBackToTheSameScenario) {
  const Scenario s = load_scenario(testing::source_path("scenarios/default.ini"));
  const std::string text = resolved_ini(s);
  const std::string path = testing::write_temp_file("resolved.ini", text);
  const Scenario again = load_scenario(path);
  EXPECT_EQ(resolved_ini(again), text);
  EXPECT_EQ(again.parallel.dp, s.parallel.dp);
  EXPECT_DOUBLE_EQ(again.gpu_memory_bytes(), s.gpu_memory_bytes());
}

TEST(ScenarioLoader, EveryShippedScenarioIsValid) {
  for (const char* name : {"scenarios/default.ini", "scenarios/examples/llama3-405b-16k-h100.ini",
                           "scenarios/examples/gpt3-175b-a100.ini", "scenarios/examples/mixtral-8x7b-ep.ini",
                           "scenarios/examples/llama2-7b-finetune-1gpu.ini", "scenarios/examples/llama3-8b-fsdp.ini"}) {
    EXPECT_NO_THROW(load_scenario(testing::source_path(name))) << name;
  }
}

}  // namespace
}  // namespace trainsim
