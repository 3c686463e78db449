#include "sim/scenario/hf_model_source.hpp"

#include <algorithm>
#include <filesystem>

#include "sim/scenario/hf_config_json.hpp"
#include "sim/scenario/hf_rope_scaling.hpp"
#include "sim/scenario/scenario_rules.hpp"

// Field names, meanings and class defaults from Hugging Face transformers (github.com/huggingface/transformers):
//   models/llama/configuration_llama.py @ 008e574391258935f3ecc3035c882e73bbcac419
//   models/qwen2/configuration_qwen2.py @ 008e574391258935f3ecc3035c882e73bbcac419
//   models/qwen3/configuration_qwen3.py @ 008e574391258935f3ecc3035c882e73bbcac419
//   models/qwen3_moe/configuration_qwen3_moe.py @ 008e574391258935f3ecc3035c882e73bbcac419
//   models/mixtral/configuration_mixtral.py @ 008e574391258935f3ecc3035c882e73bbcac419
//   models/deepseek_v3/configuration_deepseek_v3.py @ 001f85b38fb432858ace93f18622f07cec46d874
//   models/gpt_oss/configuration_gpt_oss.py @ 02b8f42b4240dddea1b27c45d2dc95fb2682f841
//   models/nemotron/configuration_nemotron.py @ 05cd1ec14dbe16127778060fb68c34105873015c
// Shape numbers are required (a missing one is an error naming it); a field whose class
// default is None-derived (num_key_value_heads -> num_attention_heads, head_dim -> hidden /
// heads) or a switch (tie_word_embeddings, attention_bias, mlp_bias, hidden_act, use_sliding_window,
// decoder_sparse_step, mlp_only_layers, layer_types, rope_scaling, swiglu_limit) takes the class's default.

namespace trainsim {

namespace {

enum class Family { llama, qwen2, qwen3, qwen3_moe, mixtral, deepseek_v3, gpt_oss, nemotron };

struct Architecture {
  const char* name;
  Family family;
};

constexpr Architecture k_architectures[] = {
    {"LlamaForCausalLM", Family::llama},           {"Qwen2ForCausalLM", Family::qwen2},
    {"Qwen3ForCausalLM", Family::qwen3},           {"Qwen3MoeForCausalLM", Family::qwen3_moe},
    {"MixtralForCausalLM", Family::mixtral},       {"DeepseekV3ForCausalLM", Family::deepseek_v3},
    {"GptOssForCausalLM", Family::gpt_oss},        {"NemotronForCausalLM", Family::nemotron},
};

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// The shape every family shares: layers, width, heads, vocabulary, embeddings.
void read_common(const HfConfigJson& c, ModelSpec& m) {
  m.layers = c.integer("num_hidden_layers", "model.layers", 1, k_max_layers, k_max_layers_why);
  m.hidden = c.integer("hidden_size", "model.hidden", 1);
  m.heads = c.integer("num_attention_heads", "model.heads", 1);
  // Every class: num_key_value_heads None means multi-head attention.
  m.kv_heads = c.integer_or("num_key_value_heads", m.heads, 1);
  m.vocab = c.integer("vocab_size", "model.vocab", 1);
  m.tied_embeddings = c.flag_or("tie_word_embeddings", false);  // False in every class above
  m.norm = NormKind::rmsnorm;
  m.position = PositionEmbedding::rope;
}

// head_dim: None in Llama, Mixtral and Nemotron means hidden / heads; Qwen3 and GPT-OSS state it.
void read_head_dim(const HfConfigJson& c, ModelSpec& m, bool required) {
  const int dim = required ? c.integer("head_dim", "model.head_dim", 1) : c.integer_or("head_dim", 0, 1);
  m.explicit_head_dim = dim == 0 || (m.hidden % m.heads == 0 && dim == m.hidden / m.heads) ? 0 : dim;
}

// hidden_act: the gated families' "silu" is SwiGLU (gate, up, down); Nemotron's "relu2" the
// squared ReLU of two matrices.
void read_activation(const HfConfigJson& c, ModelSpec& m, Family f) {
  const bool nemotron = f == Family::nemotron;
  const std::string act = c.text_or("hidden_act", nemotron ? "relu2" : "silu");
  const std::string expected = nemotron ? "relu2" : "silu";
  if (act != expected)
    c.refuse("hidden_act", act,
             "expected " + expected + " for " + c.architecture() + " (trainsim models " +
                 (nemotron ? "its squared ReLU" : "its SwiGLU MLP") + ")");
  m.activation = nemotron ? FfnActivation::squared_relu : FfnActivation::swiglu;
}

// trainsim's model.bias puts biases on every attention and MLP projection. Llama and Nemotron
// switch them with attention_bias and mlp_bias, which must then agree; Qwen3(-MoE) and
// DeepSeek-V3 have attention_bias alone, on an MLP without biases (modeling_qwen3_moe.py,
// Qwen3MoeAttention and Qwen3MoeMLP, @ 00d4b3d2142cb4ced2f51b90614b5d26bc045015): only false fits.
void read_biases(const HfConfigJson& c, ModelSpec& m, bool has_mlp_bias) {
  const bool attention = c.flag_or("attention_bias", false);
  const bool mlp = has_mlp_bias ? c.flag_or("mlp_bias", false) : false;
  if (attention != mlp)
    c.refuse("attention_bias", attention ? "true" : "false",
             has_mlp_bias ? "differs from mlp_bias: trainsim's model.bias covers both (set it beside model.from)"
                          : "trainsim's model.bias also puts biases on the MLP, which " + c.architecture() +
                                " has none of");
  m.bias = attention;
}

// Windowed and full-attention layers: trainsim windows every layer, or all but every k-th
// (full_attention_interval k: layers k-1, 2k-1, ...).
void set_attention_layers(const HfConfigJson& c, ModelSpec& m, const std::vector<bool>& windowed, const char* field) {
  const auto count = std::count(windowed.begin(), windowed.end(), true);
  if (count == 0) return;
  m.sliding_window = c.integer("sliding_window", "model.sliding_window", 1);
  if (count == static_cast<long>(windowed.size())) return;
  const auto first_full = std::find(windowed.begin(), windowed.end(), false) - windowed.begin();
  const int k = static_cast<int>(first_full) + 1;
  for (size_t i = 0; i < windowed.size(); ++i)
    if (windowed[i] != ((i + 1) % k != 0))
      c.refuse(field, "layer " + std::to_string(i),
               "trainsim windows every layer, or all but every k-th (model.full_attention_interval); this pattern is "
               "neither");
  m.full_attention_interval = k;
}

// layer_types (Qwen2, Qwen3, GPT-OSS), else each class's derivation of it.
std::vector<bool> windowed_layers(const HfConfigJson& c, const ModelSpec& m, Family f) {
  std::vector<bool> windowed(m.layers, false);
  const std::vector<std::string> types = c.texts("layer_types");
  if (!types.empty()) {
    if (static_cast<int>(types.size()) != m.layers)
      c.refuse("layer_types", std::to_string(types.size()) + " entries",
               "expected one per layer (num_hidden_layers = " + std::to_string(m.layers) + ")");
    for (int i = 0; i < m.layers; ++i) {
      if (types[i] != "full_attention" && types[i] != "sliding_attention")
        c.refuse("layer_types", types[i], "expected full_attention or sliding_attention");
      windowed[i] = types[i] == "sliding_attention";
    }
    return windowed;
  }
  if (f == Family::gpt_oss) {  // GptOssConfig: sliding on even layers, full on odd ones
    for (int i = 0; i < m.layers; ++i) windowed[i] = (i + 1) % 2 != 0;
  } else if (f == Family::mixtral) {  // MixtralConfig.sliding_window: a window on every layer when set
    std::fill(windowed.begin(), windowed.end(), c.has("sliding_window"));
  } else if (f != Family::llama && f != Family::nemotron && f != Family::deepseek_v3 &&
             c.flag_or("use_sliding_window", false)) {
    // Qwen2/Qwen3: windows from layer max_window_layers on; Qwen3-MoE: on every layer
    // (Qwen3MoeAttention reads the config's sliding_window, @ 00d4b3d2142cb4ced2f51b90614b5d26bc045015).
    const int from = f == Family::qwen3_moe ? 0 : c.integer("max_window_layers", "model.sliding_window", 0);
    for (int i = from; i < m.layers; ++i) windowed[i] = true;
  }
  return windowed;
}

// MoE layers: trainsim has model.dense_layers first, then every k-th layer (layers k-1,
// 2k-1, ...: model.moe_layer_interval) MoE.
void set_moe_layers(const HfConfigJson& c, ModelSpec& m, const std::vector<bool>& moe, const char* field) {
  const auto first = std::find(moe.begin(), moe.end(), true) - moe.begin();
  if (first == static_cast<long>(moe.size())) c.refuse(field, "", "leaves no MoE layer");
  const auto second = std::find(moe.begin() + first + 1, moe.end(), true) - moe.begin();
  const int k = second == static_cast<long>(moe.size()) ? 1 : static_cast<int>(second - first);
  if (k > 1 && (first + 1) % k != 0) c.refuse(field, "", "puts the first MoE layer off its interval");
  // With k > 1 the rule alone leaves layers 0 .. k-2 dense; dense_layers covers any more.
  const int dense = k > 1 && first == k - 1 ? 0 : static_cast<int>(first);
  for (size_t i = 0; i < moe.size(); ++i) {
    const bool expected = static_cast<int>(i) >= dense && (k == 1 || (i + 1) % k == 0);
    if (moe[i] != expected)
      c.refuse(field, "layer " + std::to_string(i),
               "trainsim has dense first layers, then every k-th layer MoE (model.dense_layers, "
               "model.moe_layer_interval); this pattern is neither");
  }
  m.dense_layers = dense;
  m.moe_layer_interval = k;
}

// Routed experts of `expert_ffn`; the dense layers' MLP, when there are any, of intermediate_size.
void set_experts(const HfConfigJson& c, ModelSpec& m, const char* experts_field, int expert_ffn) {
  m.experts = c.integer(experts_field, "model.experts", 2, k_max_experts, k_max_experts_why);
  m.top_k = c.integer("num_experts_per_tok", "model.top_k", 1, m.experts);
  const bool dense_layers = m.dense_layers > 0 || m.moe_layer_interval > 1;
  m.ffn_hidden = dense_layers ? c.integer("intermediate_size", "model.ffn_hidden", 1) : expert_ffn;
  m.moe_ffn_hidden = dense_layers && expert_ffn != m.ffn_hidden ? expert_ffn : 0;
}

void read_qwen3_moe(const HfConfigJson& c, ModelSpec& m) {
  // Qwen3MoeSparseMoeBlock on layer i unless i is in mlp_only_layers, and when (i + 1) %
  // decoder_sparse_step == 0 (modeling_qwen3_moe.py, Qwen3MoeDecoderLayer).
  const int step = c.integer_or("decoder_sparse_step", 1, 1);
  const std::vector<int> only_mlp = c.integers("mlp_only_layers");
  std::vector<bool> moe(m.layers);
  for (int i = 0; i < m.layers; ++i)
    moe[i] = std::find(only_mlp.begin(), only_mlp.end(), i) == only_mlp.end() && (i + 1) % step == 0;
  set_moe_layers(c, m, moe, only_mlp.empty() ? "decoder_sparse_step" : "mlp_only_layers");
  set_experts(c, m, "num_experts", c.integer("moe_intermediate_size", "model.moe_ffn_hidden", 1));
}

void read_deepseek_v3(const HfConfigJson& c, ModelSpec& m) {
  // MLA (DeepSeek-V3 §2.1.1). q_lora_rank null is a full-rank query projection (DeepSeek-V2-Lite).
  m.q_lora_rank = c.integer_or("q_lora_rank", 0, 0);
  m.kv_lora_rank = c.integer("kv_lora_rank", "model.kv_lora_rank", 1);
  m.qk_nope_head_dim = c.integer("qk_nope_head_dim", "model.qk_nope_head_dim", 1);
  m.qk_rope_head_dim = c.integer("qk_rope_head_dim", "model.qk_rope_head_dim", 1);
  m.v_head_dim = c.integer("v_head_dim", "model.v_head_dim", 1);
  // The first first_k_dense_replace layers dense, then every moe_layer_freq-th MoE by index
  // (the released modeling_deepseek.py: layer_idx >= first_k_dense_replace and
  // layer_idx % moe_layer_freq == 0; transformers' class has no moe_layer_freq: 1).
  const int dense = c.integer("first_k_dense_replace", "model.dense_layers", 0, m.layers);
  const int freq = c.integer_or("moe_layer_freq", 1, 1);
  std::vector<bool> moe(m.layers);
  for (int i = 0; i < m.layers; ++i) moe[i] = i >= dense && i % freq == 0;
  set_moe_layers(c, m, moe, freq == 1 ? "first_k_dense_replace" : "moe_layer_freq");
  set_experts(c, m, "n_routed_experts", c.integer("moe_intermediate_size", "model.moe_ffn_hidden", 1));
  m.shared_experts = c.integer("n_shared_experts", "model.shared_experts", 0);
  // DeepseekV3TopkRouter holds e_score_correction_bias, one per routed expert.
  m.router_bias = true;
  // Node-limited routing (DeepSeek-V3 §2.1.2): the experts in n_group groups, each token's in
  // topk_group of them (transformers' DeepseekV3Config defaults 8 and 4; Megatron-Bridge's
  // DeepSeek bridge reads them into moe_router_num_groups and moe_router_group_topk). One group
  // is no limit; the scenario's rules check the pair against the experts.
  const int groups = c.integer_or("n_group", 8, 1);
  if (groups > 1) {
    m.router_num_groups = groups;
    m.router_group_topk = c.integer_or("topk_group", 4, 1);
  }
  // Multi-token prediction modules of the released config (transformers does not build them).
  m.mtp_depth = c.integer_or("num_nextn_predict_layers", 0, 0, k_max_mtp_depth, k_max_mtp_depth_why);
}

ModelSpec read_family(const HfConfigJson& c, Family f) {
  ModelSpec m;
  read_common(c, m);
  read_activation(c, m, f);
  const bool head_dim_stated = f == Family::qwen3 || f == Family::qwen3_moe || f == Family::gpt_oss;
  if (f != Family::deepseek_v3) read_head_dim(c, m, head_dim_stated);
  if (f == Family::qwen3 || f == Family::qwen3_moe) m.qk_norm = true;  // q_norm, k_norm per head
  // Qwen2's q/k/v projections always carry biases and o_proj none (modeling_qwen2.py,
  // Qwen2Attention, @ 00d4b3d2142cb4ced2f51b90614b5d26bc045015): (heads + 2 kv_heads) x head_dim
  // a layer, under 0.01 % of Qwen2-7B, that trainsim's model.bias (every projection) cannot
  // express; they are left out.
  if (f == Family::llama || f == Family::nemotron) read_biases(c, m, true);
  if (f == Family::qwen3 || f == Family::qwen3_moe || f == Family::deepseek_v3) read_biases(c, m, false);
  if (f == Family::gpt_oss) {
    // Its experts' gate_up_proj_bias and down_proj_bias are always there, attention_bias True
    // by default; a router with a bias; a learned sink logit per head.
    m.bias = c.flag_or("attention_bias", true);
    if (!m.bias)
      c.refuse("attention_bias", "false", "GPT-OSS experts carry biases: trainsim's model.bias covers both");
    m.attention_sinks = true;
    // GptOssConfig's swiglu_limit (@ 02b8f42b: default 7.0, the released configs' value): the
    // experts' gate clamped to at most it and their linear half to +-it (models/eager_passes.hpp).
    m.activation_clamp = c.number_or("swiglu_limit", 7.0, 0.0);
  }
  // rope_scaling / rope_parameters: GptOssConfig fills in yarn when absent (hf_rope_scaling.hpp).
  m.rope_scaling = hf_rope_scaling(c, f == Family::gpt_oss ? RopeScaling::yarn : RopeScaling::none);
  if (f == Family::nemotron) m.norm = NormKind::layernorm;  // NemotronLayerNorm1P: scale and shift
  set_attention_layers(c, m, windowed_layers(c, m, f), c.has("layer_types") ? "layer_types" : "sliding_window");
  switch (f) {
    case Family::qwen3_moe: read_qwen3_moe(c, m); break;
    case Family::deepseek_v3: read_deepseek_v3(c, m); break;
    case Family::mixtral:
    case Family::gpt_oss: {
      const int ffn = c.integer("intermediate_size", "model.ffn_hidden", 1);
      set_experts(c, m, "num_local_experts", ffn);
      m.router_bias = f == Family::gpt_oss;
      break;
    }
    default: m.ffn_hidden = c.integer("intermediate_size", "model.ffn_hidden", 1);
  }
  return m;
}

// The model's name: its folder's (Llama-3.1-8B/config.json), or the file's stem.
std::string model_name(const std::filesystem::path& path) {
  if (path.filename() == "config.json" && path.has_parent_path() && !path.parent_path().filename().empty())
    return path.parent_path().filename().string();
  return path.stem().string();
}

}  // namespace

const std::vector<std::string>& hf_architectures() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Architecture& a : k_architectures) v.emplace_back(a.name);
    return v;
  }();
  return names;
}

ModelSpec model_from_hf_config(const std::string& path) {
  const HfConfigJson config(path);
  const auto it = std::find_if(std::begin(k_architectures), std::end(k_architectures),
                               [&](const Architecture& a) { return config.architecture() == a.name; });
  if (it == std::end(k_architectures))
    config.refuse("architectures", config.architecture(), "model.from reads " + joined(hf_architectures()));
  ModelSpec m = read_family(config, it->family);
  m.name = model_name(std::filesystem::path(path).lexically_normal());
  return m;
}

ScenarioField model_from_field() {
  ScenarioField f;
  f.name = "model.from";
  f.help = "a Hugging Face config.json to read the model's shape from";
  f.priority = 0;
  f.apply = [](Scenario& s, std::string_view text) -> std::optional<std::string> {
    if (text.empty()) return "expected the path of a Hugging Face config.json";
    std::filesystem::path path{std::string(text)};
    if (path.is_relative()) path = std::filesystem::path(s.source).parent_path() / path;
    std::error_code ec;
    path = std::filesystem::absolute(path, ec).lexically_normal();
    if (ec || !std::filesystem::is_regular_file(path, ec))
      return "must name a Hugging Face config.json (" + path.string() + " is no file)";
    s.model = model_from_hf_config(path.string());
    s.read_files.push_back(path.string());
    return std::nullopt;
  };
  // Not kept: the resolved scenario (`check --resolved`) writes every model key the file
  // filled in, so it reads back without it.
  f.show = [](const Scenario&) { return std::string(); };
  return f;
}

}  // namespace trainsim
