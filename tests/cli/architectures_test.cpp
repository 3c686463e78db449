// The architectures of issue 16 through the real CLI: DeepSeek-V3 (MLA, shared and routed
// experts, dense first layers, MTP) and GPT-OSS (alternating windowed and full attention,
// sinks) simulate, and `trainsim layer` lists their ops.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;

// The shipped examples: DeepSeek-V3 (PP 16, EP 16) and GPT-OSS 120B (PP 4, EP 8) on H100s.
std::string deepseek_v3_scenario() {
  return testing::source_path("scenarios/examples/deepseek-v3-ep.ini");
}

std::string gpt_oss_scenario() {
  return testing::source_path("scenarios/examples/gpt-oss-120b-ep.ini");
}

std::set<std::string> forward_ops(const std::vector<std::string>& args) {
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> names;
  if (r.exit_code != 0) return names;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const auto& op : j["ops"])
    if (op["pass"] == "forward") names.insert(op["op"].get<std::string>());
  return names;
}

TEST(Architectures, DeepSeekV3LayerListsMlaAndSharedExperts) {
  const std::string path = deepseek_v3_scenario();
  const std::set<std::string> moe = forward_ops({"layer", path, "--json"});  // the last layer: MoE
  for (const char* op : {"q.down", "q.norm", "q.up", "kv.down", "kv.norm", "kv.up", "attention", "router",
                         "shared_experts.up", "experts.up", "experts.down"})
    EXPECT_TRUE(moe.count(op)) << op;
  EXPECT_FALSE(moe.count("qkv"));
  const std::set<std::string> dense = forward_ops({"layer", path, "--json", "--layer-index", "0"});
  EXPECT_TRUE(dense.count("mlp.up"));
  EXPECT_FALSE(dense.count("router"));
  const auto bad = run_trainsim({"layer", path, "--layer-index", "61"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

TEST(Architectures, GptOssLayerListsWindowedAndFullAttention) {
  const std::string path = gpt_oss_scenario();
  const std::set<std::string> windowed = forward_ops({"layer", path, "--json", "--layer-index", "0"});
  EXPECT_TRUE(windowed.count("attention.window"));
  const std::set<std::string> full = forward_ops({"layer", path, "--json", "--layer-index", "1"});
  EXPECT_TRUE(full.count("attention"));
  EXPECT_FALSE(full.count("attention.window"));
}

TEST(Architectures, DeepSeekV3AndGptOssSimulate) {
  for (const std::string& path : {deepseek_v3_scenario(), gpt_oss_scenario()}) {
    const auto r = run_trainsim({"run", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("step time"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ep_comm"), std::string::npos) << r.out;
  }
}

TEST(Architectures, MemoryCountsTheReleasedParameters) {
  const auto r = run_trainsim({"memory", deepseek_v3_scenario()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("682.636 B"), std::string::npos) << r.out;  // 671.03 B + the MTP module's 11.61 B
  const auto oss = run_trainsim({"memory", gpt_oss_scenario()});
  ASSERT_EQ(oss.exit_code, 0) << oss.err;
  EXPECT_NE(oss.out.find("116.829 B"), std::string::npos) << oss.out;
}

}  // namespace
}  // namespace trainsim
