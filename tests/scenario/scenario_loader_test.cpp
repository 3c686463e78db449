#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "support/run_trainsim.hpp"
#include "support/scenario_entries.hpp"

namespace trainsim {
namespace {

using testing::entries;

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

// training.global_batch (issue 55 item 9): grad_accum = global_batch / (micro_batch x dp),
// with dp derived (32 GPUs over tp 4 x pp 2: dp 4).
TEST(ScenarioLoader, GlobalBatchGivesGradAccum) {
  const auto with = [](std::initializer_list<std::pair<const char*, const char*>> more) {
    std::vector<IniEntry> e = entries(
        {{"model.preset", "llama3-8b"}, {"cluster.nodes", "4"}, {"parallel.tp", "4"}, {"parallel.pp", "2"}});
    for (const auto& [k, v] : more) e.push_back({k, v, "test.ini"});
    return load_scenario(e, "test.ini");
  };
  EXPECT_EQ(with({{"training.global_batch", "64"}}).training.grad_accum, 16);
  EXPECT_EQ(with({{"training.global_batch", "64"}, {"training.micro_batch", "2"}}).training.grad_accum, 8);
  // Both, agreeing: accepted.
  EXPECT_EQ(with({{"training.global_batch", "64"}, {"training.grad_accum", "16"}}).training.grad_accum, 16);
  EXPECT_THROW(with({{"training.global_batch", "64"}, {"training.grad_accum", "8"}}), InputError);
  EXPECT_THROW(with({{"training.global_batch", "6"}}), InputError);  // 4 ranks cannot split 6 samples
  // 0 is "not given": grad_accum sets the batch.
  EXPECT_EQ(with({{"training.global_batch", "0"}, {"training.grad_accum", "3"}}).training.grad_accum, 3);
}

// A --set (or a sweep's value) of either key replaces the file's other; the resolved scenario
// reads back the same.
TEST(ScenarioLoader, GlobalBatchAndGradAccumOverridesReplaceEachOther) {
  const std::string with_accum = testing::write_temp_file(
      "accum.ini", "[model]\npreset = llama3-8b\n[training]\ngrad_accum = 8\n[parallel]\ntp = 4\npp = 2\n"
                   "[cluster]\nnodes = 4\n");
  const Scenario a = load_scenario(with_accum, {"training.global_batch=32"});
  EXPECT_EQ(a.training.grad_accum, 8);  // 32 / (1 x 4)
  EXPECT_EQ(load_scenario(with_accum, {"training.global_batch=64"}).training.grad_accum, 16);
  const std::string with_batch = testing::write_temp_file(
      "batch.ini", "[model]\npreset = llama3-8b\n[training]\nglobal_batch = 64\n[parallel]\ntp = 4\npp = 2\n"
                   "[cluster]\nnodes = 4\n");
  EXPECT_EQ(load_scenario(with_batch, {}).training.grad_accum, 16);
  EXPECT_EQ(load_scenario(with_batch, {"training.grad_accum=2"}).training.grad_accum, 2);
  // A sweep over the nodes keeps the batch: 8 nodes, dp 8, grad_accum 8.
  EXPECT_EQ(load_scenario(with_batch, {"cluster.nodes=8"}).training.grad_accum, 8);
  const std::string resolved = testing::write_temp_file("resolved.ini", resolved_ini(load_scenario(with_batch, {})));
  const Scenario back = load_scenario(resolved, {});
  EXPECT_EQ(back.training.grad_accum, 16);
  EXPECT_EQ(back.training.global_batch, 64);
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

// The InputError load_scenario(path, overrides) throws: its file, key, value and rule.
InputError refusal(const std::string& path, const std::vector<std::string>& overrides) {
  try {
    (void)load_scenario(path, overrides);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted";
  return InputError("", "", "", "");
}

// A rule across keys blamed the scenario file for what a --set gave: `--set cluster.nodes=3`
// was "FILE: parallel.dp = '(derived)': cannot derive dp", `--set model.heads=7` "FILE:
// model.hidden = '8192': must be divisible by model.heads = 7". The --set is named, with its key
// and value; the file's key the rule is about stays in the rule.
TEST(ScenarioLoader, ARuleBrokenByASetNamesTheSetNotTheFile) {
  const std::string path = testing::write_temp_file(
      "set_origin.ini", "[model]\npreset = llama3-70b\n[parallel]\ntp = 8\npp = 4\n[cluster]\nnodes = 8\n");
  const auto expect = [&](const std::vector<std::string>& overrides, const std::string& key, const std::string& value,
                          const std::string& rule) {
    SCOPED_TRACE(overrides.front());
    const InputError e = refusal(path, overrides);
    EXPECT_EQ(e.file(), "--set") << e.what();
    EXPECT_EQ(e.key(), key) << e.what();
    EXPECT_EQ(e.value(), value) << e.what();
    EXPECT_NE(e.rule().find(rule), std::string::npos) << e.what();
  };
  // The key the rule names, given by --set (check_cluster_size: 2^20 GPUs at most).
  expect({"cluster.nodes=3000000"}, "cluster.nodes", "3000000", "trainsim simulates at most 1048576");
  expect({"parallel.dp=3"}, "parallel.dp", "3", "must equal the cluster's GPUs");
  // A derived dp: the --set that sized the cluster or the split (24 or 64 GPUs over tp*pp = 32, 24).
  expect({"cluster.nodes=3"}, "cluster.nodes", "3", "parallel.dp (derived): cannot derive dp: the cluster's 24 GPUs");
  expect({"parallel.pp=3"}, "parallel.pp", "3", "parallel.dp (derived): cannot derive dp");
  // A file's key checked against the --set one the rule names.
  expect({"model.heads=7"}, "model.heads", "7",
         "with model.hidden = '8192' (" + path + "): must be divisible by model.heads = 7");
  expect({"variations.neighbour=/nonexistent/n.ini"}, "variations.neighbour", "/nonexistent/n.ini",
         "must name a scenario file");
  // The file's own values still name the file.
  const std::string broken = testing::write_temp_file(
      "set_origin_file.ini", "[model]\npreset = llama3-70b\n[parallel]\ntp = 8\npp = 3\n[cluster]\nnodes = 8\n");
  const InputError e = refusal(broken, {"training.micro_batch=2"});
  EXPECT_EQ(e.file(), broken) << e.what();
  EXPECT_EQ(e.key(), "parallel.dp") << e.what();
}

}  // namespace
}  // namespace trainsim
