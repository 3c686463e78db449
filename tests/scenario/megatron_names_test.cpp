// Megatron's names in scenario files (sim/scenario/megatron_names.hpp): an alias sets its key,
// in its key's section only; a key set by two names is refused unless a --set replaces it; a
// value the table has no translation of is refused naming the alias. The table itself: every
// key a scenario key, every name once per spelling.

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "sim/core/error.hpp"
#include "sim/scenario/megatron_names.hpp"
#include "sim/scenario/scenario_fields.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "support/scenario_entries.hpp"

namespace trainsim {
namespace {

using testing::entries;

std::string error_of(const std::vector<IniEntry>& e) {
  try {
    (void)load_scenario(e, "test.ini");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST(MegatronNames, AliasesSetTheirKeys) {
  const Scenario s = load_scenario(entries({{"model.preset", "llama3-70b"},
                                            {"model.normalization", "RMSNorm"},
                                            {"cluster.nodes", "8"},
                                            {"parallel.tensor_model_parallel_size", "8"},
                                            {"parallel.pipeline_model_parallel_size", "4"},
                                            {"parallel.sequence_parallel", "true"},
                                            {"parallel.use_distributed_optimizer", "true"},
                                            {"training.micro_batch_size", "1"},
                                            {"training.global_batch_size", "32"},
                                            {"training.recompute_granularity", "selective"}}),
                                   "test.ini");
  EXPECT_EQ(s.parallel.tp, 8);
  EXPECT_EQ(s.parallel.pp, 4);
  EXPECT_EQ(s.parallel.dp, 2);
  EXPECT_TRUE(s.parallel.sequence_parallel);
  EXPECT_EQ(s.parallel.zero, 1);
  EXPECT_EQ(s.training.global_batch, 32);
  EXPECT_EQ(s.training.grad_accum, 16);  // 32 / (1 x dp 2)
  EXPECT_EQ(s.training.recompute, Recompute::selective);
  EXPECT_EQ(s.model.norm, NormKind::rmsnorm);
}

TEST(MegatronNames, TheArgumentsDashesAndASetTakeTheNamesToo) {
  const std::string path = ::testing::TempDir() + "megatron_names_alias.ini";
  {
    std::ofstream out(path);
    out << "[model]\npreset = llama3-8b\n[training]\nmicro_batch = 1\ngrad_accum = 3\n"
           "[parallel]\ntensor-model-parallel-size = 2\n[cluster]\nnodes = 1\n";
  }
  // The --set of global_batch_size replaces the file's grad_accum as training.global_batch does.
  const Scenario s = load_scenario(path, {"training.global_batch_size=32"});
  EXPECT_EQ(s.parallel.tp, 2);
  EXPECT_EQ(s.training.global_batch, 32);
  EXPECT_EQ(s.training.grad_accum, 8);  // 32 / (1 x dp 4)
}

TEST(MegatronNames, AnAliasCountsOnlyInItsKeysSection) {
  EXPECT_NE(error_of(entries({{"model.preset", "llama3-8b"}, {"training.tensor_model_parallel_size", "8"}}))
                .find("unknown key in [training]"),
            std::string::npos);
}

TEST(MegatronNames, AKeyGivenByTwoNamesIsRefusedUnlessASetReplacesIt) {
  const std::string twice = error_of(
      entries({{"model.preset", "llama3-8b"}, {"parallel.tp", "2"}, {"parallel.tensor_model_parallel_size", "4"}}));
  EXPECT_NE(twice.find("parallel.tensor_model_parallel_size"), std::string::npos) << twice;
  EXPECT_NE(twice.find("sets parallel.tp a second time"), std::string::npos) << twice;
  std::vector<IniEntry> e = entries({{"model.preset", "llama3-8b"}, {"parallel.tensor_model_parallel_size", "4"}});
  e.push_back({"parallel.tp", "2", "--set"});
  EXPECT_EQ(load_scenario(e, "test.ini").parallel.tp, 2);
}

TEST(MegatronNames, AValueWithoutATranslationIsRefusedNamingTheAlias) {
  const std::string bad = error_of(entries({{"model.preset", "llama3-8b"}, {"model.normalization", "BatchNorm"}}));
  EXPECT_NE(bad.find("model.normalization"), std::string::npos) << bad;
  EXPECT_NE(bad.find("BatchNorm"), std::string::npos) << bad;
  EXPECT_NE(bad.find("LayerNorm or RMSNorm"), std::string::npos) << bad;
  // flex names no dispatcher: its backend does (moe_flex_dispatcher_backend).
  const std::string flex =
      error_of(entries({{"model.preset", "qwen3-30b-a3b"}, {"parallel.moe_token_dispatcher_type", "flex"}}));
  EXPECT_NE(flex.find("sets nothing by itself"), std::string::npos) << flex;
}

TEST(MegatronNames, EveryKeyIsAScenarioKeyAndEveryNameIsOncePerSpelling) {
  std::set<std::string> keys;
  for (const ScenarioField& f : scenario_fields()) keys.insert(f.name);
  std::set<std::string> arguments, config;
  for (const MegatronName& n : megatron_names()) {
    if (!n.key.empty()) {
      EXPECT_TRUE(keys.count(std::string(n.key))) << n.name << " -> " << n.key;
    }
    if (n.spelled_as_argument()) {
      EXPECT_TRUE(arguments.insert(std::string(n.name)).second) << n.name;
    }
    if (n.spelled_in_config()) {
      EXPECT_TRUE(config.insert(std::string(n.name)).second) << n.name;
    }
    // A Megatron name that is also a trainsim key of its section is that key (the loader
    // reads trainsim's keys first).
    const std::string same_name = std::string(n.key.substr(0, n.key.find('.'))) + "." + std::string(n.name);
    if (!n.key.empty() && keys.count(same_name)) {
      EXPECT_EQ(same_name, n.key) << n.name;
    }
  }
}

}  // namespace
}  // namespace trainsim
