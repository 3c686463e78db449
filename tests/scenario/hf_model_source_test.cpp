// model.from (issue 58 item 2): a Hugging Face config.json of each family the presets cover
// fills a model that `trainsim memory` prices as the preset of the same model; a field the file
// lacks or that trainsim cannot represent is one line naming the file and the JSON field.
// The configs under scenarios/hf/ hold the released models' values (scenarios/hf/README.md).

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "models/parameter_count.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/hf_model_source.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;
using testing::source_path;
using testing::write_temp_file;

std::string config(const std::string& model) {
  return source_path("scenarios/hf/" + model + "/config.json");
}

struct PresetPair {
  const char* config;    ///< folder under scenarios/hf/
  const char* scenario;  ///< a shipped scenario on the preset of the same model
};

std::ostream& operator<<(std::ostream& os, const PresetPair& p) {
  return os << p.config;
}

class HfConfigMatchesPreset : public ::testing::TestWithParam<PresetPair> {};

double stage_total(const nlohmann::json& j) {
  double total = 0;
  for (const auto& st : j.at("stages")) total += st.at("total").get<double>();
  return total;
}

TEST_P(HfConfigMatchesPreset, MemoryPricesTheSameModel) {
  const PresetPair& p = GetParam();
  // The same training length for both (the preset's own is a pre-training choice; the config has none).
  const std::vector<std::string> common{"memory", source_path(p.scenario), "--json", "--set", "model.seq_len=4096"};
  std::vector<std::string> from = common;
  from.insert(from.end(), {"--set", "model.from=" + config(p.config)});
  const auto a = run_trainsim(common);
  const auto b = run_trainsim(from);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto preset = nlohmann::json::parse(a.out);
  const auto hf = nlohmann::json::parse(b.out);
  const double params = preset.at("parameters").get<double>();
  EXPECT_NEAR(hf.at("parameters").get<double>(), params, 1e-3 * params);
  EXPECT_NEAR(stage_total(hf), stage_total(preset), 1e-3 * stage_total(preset));
  EXPECT_EQ(hf.at("stages").size(), preset.at("stages").size());
}

INSTANTIATE_TEST_SUITE_P(
    Families, HfConfigMatchesPreset,
    ::testing::Values(PresetPair{"Llama-3.1-8B", "scenarios/examples/llama3-8b-fsdp.ini"},
                      PresetPair{"Llama-3.1-70B", "scenarios/default.ini"},
                      PresetPair{"Llama-3.1-405B", "scenarios/examples/llama3-405b-16k-h100.ini"},
                      PresetPair{"Qwen3-30B-A3B", "scenarios/examples/qwen3-30b-a3b-ep.ini"},
                      PresetPair{"Qwen3-235B-A22B", "scenarios/examples/qwen3-235b-a22b-ep.ini"},
                      PresetPair{"Mixtral-8x7B-v0.1", "scenarios/examples/mixtral-8x7b-ep.ini"},
                      PresetPair{"DeepSeek-V3", "scenarios/examples/deepseek-v3-ep.ini"},
                      PresetPair{"gpt-oss-120b", "scenarios/examples/gpt-oss-120b-ep.ini"},
                      PresetPair{"Nemotron-4-340B", "scenarios/examples/nemotron-4-340b.ini"}),
    [](const ::testing::TestParamInfo<PresetPair>& pair) {
      std::string name = pair.param.config;
      std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
                      '_');
      return name;
    });

TEST(HfModelSource, FamiliesWithoutAPresetCountTheirTensors) {
  // Qwen3-8B, tensor by tensor from its config: q and o 4096 x 32*128, k and v 4096 x 8*128,
  // q_norm and k_norm 128 each, gate/up/down 3 x 4096 x 12288, two norms a layer; untied
  // embedding and lm_head of 151936 x 4096; the final norm.
  const double h = 4096, qwen3_layer = 2 * h * 4096 + 2 * h * 1024 + 256 + 3 * h * 12288 + 2 * h;
  EXPECT_EQ(total_parameters(model_from_hf_config(config("Qwen3-8B"))), 36 * qwen3_layer + 2 * 151936 * h + h);
  // Qwen2.5-7B: q and o 3584 x 3584, k and v 3584 x 512, gate/up/down 3 x 3584 x 18944; vocab
  // 152064, untied. Its q/k/v biases (3584 + 2 x 512 a layer, 129,024 in all) are left out.
  const double w = 3584, qwen2_layer = 2 * w * w + 2 * w * 512 + 3 * w * 18944 + 2 * w;
  const ModelSpec qwen2 = model_from_hf_config(config("Qwen2.5-7B"));
  EXPECT_EQ(total_parameters(qwen2), 28 * qwen2_layer + 2 * 152064 * w + w);
  EXPECT_FALSE(qwen2.bias);
}

TEST(HfModelSource, LayerPatternsBecomeTheirKeys) {
  const ModelSpec ds = model_from_hf_config(config("DeepSeek-V3"));
  EXPECT_EQ(ds.dense_layers, 3);
  EXPECT_EQ(ds.moe_layer_interval, 1);
  EXPECT_EQ(ds.ffn_hidden, 18432);
  EXPECT_EQ(ds.moe_ffn_hidden, 2048);
  EXPECT_EQ(ds.shared_experts, 1);
  EXPECT_EQ(ds.mtp_depth, 1);
  EXPECT_EQ(ds.kv_lora_rank, 512);
  EXPECT_TRUE(ds.router_bias);
  EXPECT_EQ(ds.router_num_groups, 8);  // n_group, topk_group: node-limited routing
  EXPECT_EQ(ds.router_group_topk, 4);
  const ModelSpec oss = model_from_hf_config(config("gpt-oss-120b"));
  EXPECT_EQ(oss.sliding_window, 128);
  EXPECT_EQ(oss.full_attention_interval, 2);
  EXPECT_TRUE(oss.attention_sinks);
  EXPECT_EQ(oss.rope_scaling, RopeScaling::yarn);  // rope_scaling.rope_type
  EXPECT_EQ(oss.activation_clamp, 7.0);            // swiglu_limit
  EXPECT_EQ(oss.name, "gpt-oss-120b");
}

TEST(HfModelSource, ClassDefaultsAndLayerListsBecomeTheKeys) {
  const std::string moe = R"({"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 2048, "num_hidden_layers": 8,
      "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 151936,
      "intermediate_size": 6144, "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8, )";
  // mlp_only_layers [0, 1]: two dense first layers of intermediate_size, the experts' own size kept.
  const ModelSpec dense_first =
      model_from_hf_config(write_temp_file("dense_first.json", moe + R"("mlp_only_layers": [0, 1]})"));
  EXPECT_EQ(dense_first.dense_layers, 2);
  EXPECT_EQ(dense_first.moe_layer_interval, 1);
  EXPECT_EQ(dense_first.ffn_hidden, 6144);
  EXPECT_EQ(dense_first.expert_ffn(), 768);
  // decoder_sparse_step 2: layers 1, 3, 5, 7 MoE, as Qwen3MoeDecoderLayer builds them.
  const ModelSpec every_other =
      model_from_hf_config(write_temp_file("every_other.json", moe + R"("decoder_sparse_step": 2})"));
  EXPECT_EQ(every_other.dense_layers, 0);
  EXPECT_EQ(every_other.moe_layer_interval, 2);
  // Qwen2 with use_sliding_window and max_window_layers 0: a window on every layer.
  const ModelSpec windowed = model_from_hf_config(write_temp_file("windowed.json", R"({"architectures":
      ["Qwen2ForCausalLM"], "hidden_size": 896, "num_hidden_layers": 24, "num_attention_heads": 14,
      "num_key_value_heads": 2, "intermediate_size": 4864, "vocab_size": 151936, "tie_word_embeddings": true,
      "use_sliding_window": true, "sliding_window": 4096, "max_window_layers": 0})"));
  EXPECT_EQ(windowed.sliding_window, 4096);
  EXPECT_EQ(windowed.full_attention_interval, 0);
  EXPECT_TRUE(windowed.tied_embeddings);
  EXPECT_EQ(windowed.kv_heads, 2);
  // GPT-OSS without layer_types: GptOssConfig's alternation, a window first.
  const ModelSpec oss = model_from_hf_config(write_temp_file("oss.json", R"({"architectures": ["GptOssForCausalLM"],
      "hidden_size": 2880, "num_hidden_layers": 4, "num_attention_heads": 64, "num_key_value_heads": 8,
      "head_dim": 64, "vocab_size": 201088, "intermediate_size": 2880, "num_local_experts": 32,
      "num_experts_per_tok": 4, "sliding_window": 128})"));
  EXPECT_EQ(oss.full_attention_interval, 2);
  EXPECT_TRUE(oss.bias);
  EXPECT_TRUE(oss.router_bias);
}

// GPT-OSS's fields as GptOssConfig names them (transformers
// models/gpt_oss/configuration_gpt_oss.py), written here with the few shape fields a file needs.
std::string gpt_oss_config(const std::string& name, const std::string& extra) {
  return write_temp_file(name + ".json", R"({"architectures": ["GptOssForCausalLM"], "hidden_size": 2880,
      "num_hidden_layers": 2, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
      "vocab_size": 201088, "intermediate_size": 2880, "num_local_experts": 8, "num_experts_per_tok": 4,
      "sliding_window": 128)" + extra + "}");
}

TEST(HfModelSource, RopeScalingAndSwigluLimitBecomeTheirKeys) {
  // The released 120B config's fields: rope_scaling with rope_type yarn, swiglu_limit 7.0.
  const ModelSpec released = model_from_hf_config(gpt_oss_config("oss_released", R"(, "rope_scaling": {
      "beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0, "original_max_position_embeddings": 4096,
      "rope_type": "yarn", "truncate": false}, "swiglu_limit": 7.0)"));
  EXPECT_EQ(released.rope_scaling, RopeScaling::yarn);
  EXPECT_EQ(released.activation_clamp, 7.0);
  // The limit is read, not assumed; without either field, GptOssConfig's defaults (yarn, 7.0).
  EXPECT_EQ(model_from_hf_config(gpt_oss_config("oss_limit", R"(, "swiglu_limit": 5.5)")).activation_clamp, 5.5);
  const ModelSpec defaults = model_from_hf_config(gpt_oss_config("oss_defaults", ""));
  EXPECT_EQ(defaults.rope_scaling, RopeScaling::yarn);
  EXPECT_EQ(defaults.activation_clamp, 7.0);
  // transformers v5's rope_parameters; plain RoPE stated is plain RoPE, on GPT-OSS too.
  EXPECT_EQ(model_from_hf_config(gpt_oss_config("oss_plain", R"(, "rope_parameters": {"rope_type": "default",
      "rope_theta": 150000.0})")).rope_scaling,
            RopeScaling::none);
  // Other families: Llama 3.1's llama3 and linear scaling are plain (fused) RoPE, a legacy
  // "type": "yarn" (DeepSeek-V3's spelling) is YaRN; no rope_scaling is plain RoPE.
  const std::string llama = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 2,
      "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 128256)";
  const auto llama_with = [&](const std::string& name, const std::string& rope) {
    return model_from_hf_config(write_temp_file(name + ".json", llama + rope + "}"));
  };
  EXPECT_EQ(llama_with("llama3", R"(, "rope_scaling": {"factor": 8.0, "rope_type": "llama3"})").rope_scaling,
            RopeScaling::none);
  EXPECT_EQ(llama_with("linear", R"(, "rope_scaling": {"factor": 2.0, "type": "linear"})").rope_scaling,
            RopeScaling::none);
  EXPECT_EQ(llama_with("yarn", R"(, "rope_scaling": {"factor": 4.0, "type": "yarn"})").rope_scaling,
            RopeScaling::yarn);
  EXPECT_EQ(llama_with("none", "").rope_scaling, RopeScaling::none);
  EXPECT_EQ(llama_with("null", R"(, "rope_scaling": null)").rope_scaling, RopeScaling::none);
  EXPECT_EQ(llama_with("none", "").activation_clamp, 0.0);
}

TEST(HfModelSource, RopeScalingAndSwigluLimitPriceTheEagerPasses) {
  // Through `trainsim layer`: the GPT-OSS config prices the unfused rotation and the clamp,
  // the same config with plain RoPE and no clamp (swiglu_limit cannot be 0: a preset-style
  // override) the fused kernel and no clamp.
  const std::string oss = gpt_oss_config("oss_layer", R"(, "rope_scaling": {"rope_type": "yarn", "factor": 32.0})");
  const std::string plain =
      gpt_oss_config("oss_layer_plain", R"(, "rope_scaling": {"rope_type": "default"}, "swiglu_limit": 7.0)");
  const auto scenario = [](const std::string& json, const std::string& more) {
    return write_temp_file("oss_layer.ini", "[model]\nfrom = " + json + "\nseq_len = 4096\n" + more +
                                                "[parallel]\nep = 8\n[cluster]\nnodes = 1\n");
  };
  const auto yarn = run_trainsim({"layer", scenario(oss, "")});
  ASSERT_EQ(yarn.exit_code, 0) << yarn.err;
  EXPECT_NE(yarn.out.find("attention.rotary_eager"), std::string::npos) << yarn.out;
  EXPECT_NE(yarn.out.find("experts.clamp"), std::string::npos) << yarn.out;
  const auto fused = run_trainsim({"layer", scenario(plain, "activation_clamp = 0\n")});
  ASSERT_EQ(fused.exit_code, 0) << fused.err;
  EXPECT_EQ(fused.out.find("attention.rotary_eager"), std::string::npos) << fused.out;
  EXPECT_EQ(fused.out.find("experts.clamp"), std::string::npos) << fused.out;
  EXPECT_NE(fused.out.find("attention.rope"), std::string::npos) << fused.out;
}

TEST(HfModelSource, ScenarioKeysBesideItOverride) {
  const std::string scenario = write_temp_file("from.ini", "[model]\nfrom = " + config("Llama-3.1-8B") +
                                                               "\nseq_len = 2048\nlayers = 16\n"
                                                               "[parallel]\ntp = 8\n[cluster]\nnodes = 1\n");
  const Scenario s = load_scenario(scenario);
  EXPECT_EQ(s.model.layers, 16);
  EXPECT_EQ(s.model.hidden, 4096);
  EXPECT_EQ(s.model.kv_heads, 8);
  // `check --resolved` writes the file back; reading it gives the same model.
  const Scenario again = load_scenario(write_temp_file("resolved.ini", resolved_ini(s)));
  EXPECT_EQ(again.model.layers, 16);
  EXPECT_EQ(total_parameters(again.model), total_parameters(s.model));
}

struct BadConfig {
  const char* name;
  std::string json;   ///< the config.json's text
  std::string field;  ///< the JSON field the message names
  std::string words;  ///< a word of the rule
};

std::ostream& operator<<(std::ostream& os, const BadConfig& b) {
  return os << b.name;
}

class HfConfigErrors : public ::testing::TestWithParam<BadConfig> {};

TEST_P(HfConfigErrors, ExitTwoWithOneLineNamingTheFileAndField) {
  const BadConfig& c = GetParam();
  const std::string json = write_temp_file(std::string(c.name) + ".json", c.json);
  const std::string scenario =
      write_temp_file(std::string(c.name) + ".ini", "[model]\nfrom = " + json + "\nseq_len = 4096\n");
  const auto r = run_trainsim({"memory", scenario});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(json), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(c.field), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(c.words), std::string::npos) << r.err;
}

const std::string k_llama_head = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, )";

INSTANTIATE_TEST_SUITE_P(
    Cases, HfConfigErrors,
    ::testing::Values(
        BadConfig{"missing_layers",
                  k_llama_head + R"("num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 128256})",
                  "num_hidden_layers", "model.layers"},
        BadConfig{"unknown_architecture", R"({"architectures": ["BertModel"]})", "architectures",
                  "LlamaForCausalLM, Qwen2ForCausalLM"},
        BadConfig{"no_architectures", R"({"hidden_size": 4096})", "architectures", "missing"},
        BadConfig{"control_character", R"({"architectures": ["Foo\nBar"]})", "architectures", "'Foo?Bar'"},
        BadConfig{"nested_list", R"({"architectures": [[[[["LlamaForCausalLM"]]]]]})", "architectures", "'[...]'"},
        BadConfig{"not_json", "{\"architectures\": [", "", "not JSON"},
        BadConfig{"float_layers",
                  k_llama_head +
                      R"("num_hidden_layers": 32.5, "num_attention_heads": 32, "intermediate_size": 1, "vocab_size": 1})",
                  "num_hidden_layers", "integer"},
        BadConfig{"too_many_layers",
                  k_llama_head +
                      R"("num_hidden_layers": 100000, "num_attention_heads": 32, "intermediate_size": 1, "vocab_size": 1})",
                  "num_hidden_layers", "4096"},
        BadConfig{"gelu_llama",
                  k_llama_head + R"("hidden_act": "gelu", "num_hidden_layers": 2, "num_attention_heads": 32,
                    "intermediate_size": 1, "vocab_size": 1})",
                  "hidden_act", "silu"},
        BadConfig{"half_biases",
                  k_llama_head + R"("attention_bias": true, "num_hidden_layers": 2, "num_attention_heads": 32,
                    "intermediate_size": 1, "vocab_size": 1})",
                  "attention_bias", "mlp_bias"},
        BadConfig{"mixtral_without_experts",
                  R"({"architectures": ["MixtralForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 2,
                    "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000,
                    "num_experts_per_tok": 2})",
                  "num_local_experts", "model.experts"},
        BadConfig{"deepseek_without_mla",
                  R"({"architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168, "num_hidden_layers": 4,
                    "num_attention_heads": 128, "vocab_size": 129280})",
                  "kv_lora_rank", "missing"},
        BadConfig{"rope_dynamic",
                  k_llama_head + R"("num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 1,
                    "vocab_size": 1, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}})",
                  "rope_scaling.rope_type", "Megatron-Core builds no other"},
        BadConfig{"rope_legacy_longrope",
                  k_llama_head + R"("num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 1,
                    "vocab_size": 1, "rope_scaling": {"type": "longrope"}})",
                  "rope_scaling.type", "yarn"},
        BadConfig{"rope_scaling_not_an_object",
                  k_llama_head + R"("num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 1,
                    "vocab_size": 1, "rope_scaling": "yarn"})",
                  "rope_scaling", "JSON object"},
        BadConfig{"swiglu_limit_zero",
                  R"({"architectures": ["GptOssForCausalLM"], "hidden_size": 2880, "num_hidden_layers": 2,
                    "num_attention_heads": 64, "head_dim": 64, "vocab_size": 201088, "intermediate_size": 2880,
                    "num_local_experts": 8, "num_experts_per_tok": 2, "sliding_window": 128, "swiglu_limit": 0})",
                  "swiglu_limit", "above 0"},
        BadConfig{"window_pattern",
                  R"({"architectures": ["GptOssForCausalLM"], "hidden_size": 2880, "num_hidden_layers": 3,
                    "num_attention_heads": 64, "head_dim": 64, "vocab_size": 201088, "intermediate_size": 2880,
                    "num_local_experts": 8, "num_experts_per_tok": 2, "sliding_window": 128,
                    "layer_types": ["full_attention", "sliding_attention", "sliding_attention"]})",
                  "layer_types", "full_attention_interval"}),
    [](const ::testing::TestParamInfo<BadConfig>& bad) { return std::string(bad.param.name); });

TEST(HfModelSource, ScenarioRulesOfTheKey) {
  const std::string from = "from = " + config("Llama-3.1-8B") + "\n";
  const auto both = run_trainsim({"memory", write_temp_file("both.ini", "[model]\npreset = llama3-8b\n" + from)});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("model.from"), std::string::npos) << both.err;
  EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;
  const auto no_length = run_trainsim({"memory", write_temp_file("nolength.ini", "[model]\n" + from)});
  EXPECT_EQ(no_length.exit_code, 2);
  EXPECT_NE(no_length.err.find("model.seq_len"), std::string::npos) << no_length.err;
  const auto missing = run_trainsim({"memory", write_temp_file("missing.ini", "[model]\nfrom = nowhere/config.json\n")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("model.from = 'nowhere/config.json'"), std::string::npos) << missing.err;
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
}

}  // namespace
}  // namespace trainsim
