// [model]: the model's shape, from a preset, a Hugging Face config.json (model.from) or key by key, and the
// rules across its keys. The token-dropping keys (token_drop_fields.hpp) follow model.capacity_factor.

#include <string>
#include <vector>

#include "models/model_presets.hpp"
#include "sim/scenario/field_kinds.hpp"
#include "sim/scenario/hf_model_source.hpp"
#include "sim/scenario/preset_files.hpp"
#include "sim/scenario/router_fields.hpp"
#include "sim/scenario/rule_helpers.hpp"
#include "sim/scenario/scenario_rules.hpp"
#include "sim/scenario/scenario_sections.hpp"
#include "sim/scenario/token_drop_fields.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim::schema {

namespace {

using field_kinds::Rule;
using field_kinds::bool_field;
using field_kinds::enum_field;
using field_kinds::int_field;
using field_kinds::join;
using field_kinds::number_field;
using field_kinds::number_text;

const parse::EnumNames<FfnActivation> k_activations{
    {{"gelu", FfnActivation::gelu}, {"swiglu", FfnActivation::swiglu}, {"squared_relu", FfnActivation::squared_relu}}};
const parse::EnumNames<NormKind> k_norms{{{"layernorm", NormKind::layernorm}, {"rmsnorm", NormKind::rmsnorm}}};
const parse::EnumNames<PositionEmbedding> k_positions{
    {{"learned", PositionEmbedding::learned}, {"rope", PositionEmbedding::rope}}};
const parse::EnumNames<RopeScaling> k_rope_scalings{{{"none", RopeScaling::none}, {"yarn", RopeScaling::yarn}}};

// The help texts name no preset: they are read from the data folder (`trainsim presets`).
ScenarioField model_preset_field() {
  ScenarioField f;
  f.name = "model.preset";
  f.help = "published model shape (trainsim presets lists them), or the path of a model preset file";
  f.priority = 0;
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    std::string path;
    if (names_a_preset_file(text)) {
      if (auto rule = preset_file_rule(text, s.source, path)) return rule;
      s.model = read_model_preset(path).spec;
      s.read_files.push_back(path);
      return std::nullopt;
    }
    const auto m = model_preset(text);
    if (!m) return "expected one of " + join(model_preset_names()) + ", or a model preset file's path";
    s.model = *m;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.model.name; };
  return f;
}

// model.router_balance: "forced" (1), "aux_loss" (the measured loads of models/expert_load.hpp)
// or the busiest expert-parallel rank's load factor (>= 1).
ScenarioField router_balance_field() {
  ScenarioField f;
  f.name = "model.router_balance";
  f.help = "forced (Megatron's force-balanced routing), aux_loss (a trained router's measured imbalance) or the "
           "busiest expert-parallel rank's tokens over the mean";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    s.model.router_aux_loss = text == "aux_loss";
    if (text == "forced" || text == "aux_loss") {
      s.model.router_load = 1.0;
      return std::nullopt;
    }
    const auto v = parse::number(text);
    if (!v || !(*v >= 1.0)) return "expected forced, aux_loss or a load factor >= 1 (e.g. 1.15)";
    s.model.router_load = *v;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) {
    if (s.model.router_aux_loss) return std::string("aux_loss");
    return s.model.router_load == 1.0 ? std::string("forced") : number_text(s.model.router_load);
  };
  return f;
}

}  // namespace

std::vector<ScenarioField> model_fields() {
  std::vector<ScenarioField> fields{
      model_preset_field(),
      model_from_field(),
      int_field(
          "model.layers", "transformer layers", [](auto& s) -> auto& { return s.model.layers; }, 1, k_max_layers,
          k_max_layers_why),
      int_field(
          "model.hidden", "hidden size h", [](auto& s) -> auto& { return s.model.hidden; }, 1),
      int_field(
          "model.heads", "attention heads a", [](auto& s) -> auto& { return s.model.heads; }, 1),
      int_field(
          "model.kv_heads", "key/value heads (GQA); default: heads", [](auto& s) -> auto& { return s.model.kv_heads; },
          1),
      int_field(
          "model.ffn_hidden", "MLP inner size (per expert)", [](auto& s) -> auto& { return s.model.ffn_hidden; }, 1),
      int_field(
          "model.vocab", "vocabulary size V", [](auto& s) -> auto& { return s.model.vocab; }, 1),
      int_field(
          "model.seq_len", "sequence length s", [](auto& s) -> auto& { return s.model.seq_len; }, 1),
      int_field(
          "model.experts", "MoE experts (1 = dense)", [](auto& s) -> auto& { return s.model.experts; }, 1,
          k_max_experts, k_max_experts_why),
      int_field(
          "model.top_k", "experts per token", [](auto& s) -> auto& { return s.model.top_k; }, 1),
      enum_field(
          "model.activation", "MLP type", [](auto& s) -> auto& { return s.model.activation; }, k_activations),
      enum_field(
          "model.norm", "normalisation", [](auto& s) -> auto& { return s.model.norm; }, k_norms),
      enum_field(
          "model.position_embedding", "position encoding", [](auto& s) -> auto& { return s.model.position; },
          k_positions),
      enum_field(
          "model.rope_scaling", "rotary frequency scaling: none or yarn (GPT-OSS; run unfused)",
          [](auto& s) -> auto& { return s.model.rope_scaling; }, k_rope_scalings),
      number_field(
          "model.activation_clamp", "GLU inputs clamped to this before the activation (GPT-OSS: 7; 0: none)",
          [](auto& s) -> auto& { return s.model.activation_clamp; }, 0.0),
      bool_field(
          "model.bias", "linear layers have biases", [](auto& s) -> auto& { return s.model.bias; }),
      bool_field(
          "model.tied_embeddings", "output layer shares the embedding",
          [](auto& s) -> auto& { return s.model.tied_embeddings; }),
      bool_field(
          "model.dropout", "dropout layers (their masks are stored)", [](auto& s) -> auto& { return s.model.dropout; }),
      number_field(
          "model.capacity_factor", "expert capacity as a multiple of the balanced share (0: dropless)",
          [](auto& s) -> auto& { return s.model.capacity_factor; }, 0.0),
      number_field(
          "model.expert_imbalance", "coefficient of variation of the experts' token counts",
          [](auto& s) -> auto& { return s.model.expert_imbalance; }, 0.0),
      router_balance_field(),
      int_field(
          "model.head_dim", "head dimension when not hidden / heads (0: hidden / heads)",
          [](auto& s) -> auto& { return s.model.explicit_head_dim; }, 0),
      bool_field(
          "model.qk_norm", "RMSNorm on each query and key head (Qwen3)",
          [](auto& s) -> auto& { return s.model.qk_norm; }),
      int_field(
          "model.q_lora_rank", "MLA: rank of the query projection (0: full rank)",
          [](auto& s) -> auto& { return s.model.q_lora_rank; }, 0),
      int_field(
          "model.kv_lora_rank", "MLA: rank of the key-value latent (0: no MLA)",
          [](auto& s) -> auto& { return s.model.kv_lora_rank; }, 0),
      int_field(
          "model.qk_rope_head_dim", "MLA: rotary part of each query and key head",
          [](auto& s) -> auto& { return s.model.qk_rope_head_dim; }, 0),
      int_field(
          "model.qk_nope_head_dim", "MLA: part of each query and key head without rotary embedding",
          [](auto& s) -> auto& { return s.model.qk_nope_head_dim; }, 0),
      int_field(
          "model.v_head_dim", "MLA: each value head's dimension", [](auto& s) -> auto& { return s.model.v_head_dim; },
          0),
      int_field(
          "model.sliding_window", "tokens a query attends over (0: the whole sequence)",
          [](auto& s) -> auto& { return s.model.sliding_window; }, 0),
      int_field(
          "model.full_attention_interval", "with a window, every N-th layer attends fully (0: none)",
          [](auto& s) -> auto& { return s.model.full_attention_interval; }, 0),
      bool_field(
          "model.attention_sinks", "a learned sink logit per head (GPT-OSS)",
          [](auto& s) -> auto& { return s.model.attention_sinks; }),
      bool_field(
          "model.parallel_block", "attention and MLP side by side on one norm (GPT-J, PaLM)",
          [](auto& s) -> auto& { return s.model.parallel_block; }),
      int_field(
          "model.moe_ffn_hidden", "routed experts' inner size (0: model.ffn_hidden)",
          [](auto& s) -> auto& { return s.model.moe_ffn_hidden; }, 0),
      int_field(
          "model.shared_experts", "always-active experts beside the routed ones",
          [](auto& s) -> auto& { return s.model.shared_experts; }, 0),
      int_field(
          "model.shared_expert_ffn_hidden", "each shared expert's inner size (0: the routed experts')",
          [](auto& s) -> auto& { return s.model.shared_expert_ffn_hidden; }, 0),
      int_field(
          "model.dense_layers", "first layers with a dense MLP of model.ffn_hidden",
          [](auto& s) -> auto& { return s.model.dense_layers; }, 0),
      int_field(
          "model.moe_layer_interval", "after the dense layers, every N-th layer is MoE, the others dense",
          [](auto& s) -> auto& { return s.model.moe_layer_interval; }, 1),
      bool_field(
          "model.router_bias", "the router has a bias per expert",
          [](auto& s) -> auto& { return s.model.router_bias; }),
      int_field(
          "model.mtp_depth", "multi-token prediction modules (DeepSeek-V3: 1)",
          [](auto& s) -> auto& { return s.model.mtp_depth; }, 0, k_max_mtp_depth, k_max_mtp_depth_why),
  };
  // The token-dropping keys follow model.capacity_factor (token_drop_fields.hpp).
  const auto capacity = std::find_if(fields.begin(), fields.end(),
                                     [](const ScenarioField& f) { return f.name == "model.capacity_factor"; });
  const std::vector<ScenarioField> drop = token_drop_fields();
  fields.insert(capacity + 1, drop.begin(), drop.end());
  // The group-limited routing keys follow model.router_balance (router_fields.hpp).
  const auto balance = std::find_if(fields.begin(), fields.end(),
                                    [](const ScenarioField& f) { return f.name == "model.router_balance"; });
  const std::vector<ScenarioField> groups = router_group_fields();
  fields.insert(balance + 1, groups.begin(), groups.end());
  return fields;
}

namespace {

// The architecture keys of issue 16: MLA, windows, MoE variants, multi-token prediction.
void check_model_variants(const Scenario& s) {
  const ModelSpec& m = s.model;
  require(s, m.sliding_window <= m.seq_len, "model.sliding_window", m.sliding_window,
          "must not exceed model.seq_len = " + str(m.seq_len) + " (0: full attention)");
  if (m.rope_scaling != RopeScaling::none && m.position != PositionEmbedding::rope)
    throw InputError(s.source, "model.rope_scaling", "yarn", "needs model.position_embedding = rope");
  if (m.activation_clamp > 0 && m.activation != FfnActivation::swiglu)
    throw InputError(s.source, "model.activation_clamp", number(m.activation_clamp),
                     "needs model.activation = swiglu (a gated MLP)");
  require(s, m.full_attention_interval == 0 || m.sliding_window > 0, "model.full_attention_interval",
          m.full_attention_interval, "needs model.sliding_window > 0");
  require(s, m.full_attention_interval <= m.layers, "model.full_attention_interval", m.full_attention_interval,
          "must not exceed model.layers = " + str(m.layers));
  require(s, m.dense_layers == 0 || m.is_moe(), "model.dense_layers", m.dense_layers, "needs model.experts > 1");
  require(s, m.dense_layers < m.layers, "model.dense_layers", m.dense_layers,
          "must be less than model.layers = " + str(m.layers) + " (the rest are MoE layers)");
  require(s, m.moe_layer_interval == 1 || m.is_moe(), "model.moe_layer_interval", m.moe_layer_interval,
          "needs model.experts > 1");
  require(s, m.moe_layer_interval <= m.layers - m.dense_layers, "model.moe_layer_interval", m.moe_layer_interval,
          "must not exceed the layers after model.dense_layers = " + str(m.layers - m.dense_layers) +
              " (some layer must be MoE)");
  require(s, m.shared_experts == 0 || m.is_moe(), "model.shared_experts", m.shared_experts, "needs model.experts > 1");
  require(s, m.moe_ffn_hidden == 0 || m.is_moe(), "model.moe_ffn_hidden", m.moe_ffn_hidden, "needs model.experts > 1");
  require(s, m.shared_expert_ffn_hidden == 0 || m.shared_experts > 0, "model.shared_expert_ffn_hidden",
          m.shared_expert_ffn_hidden, "needs model.shared_experts > 0");
  require(s, m.q_lora_rank == 0 || m.is_mla(), "model.q_lora_rank", m.q_lora_rank,
          "needs MLA: model.kv_lora_rank > 0");
  for (const auto& [key, value] : {std::pair<const char*, int>{"model.qk_rope_head_dim", m.qk_rope_head_dim},
                                   {"model.qk_nope_head_dim", m.qk_nope_head_dim},
                                   {"model.v_head_dim", m.v_head_dim}}) {
    if (m.is_mla())
      require(s, value > 0, key, value, "must be > 0 with MLA (model.kv_lora_rank > 0)");
    else
      require(s, value == 0, key, value, "needs MLA: model.kv_lora_rank > 0");
  }
  require(s, !m.is_mla() || m.explicit_head_dim == 0, "model.head_dim", m.explicit_head_dim,
          "does not apply with MLA: its heads are qk_nope_head_dim + qk_rope_head_dim and v_head_dim wide");
}

}  // namespace

void check_model(const Scenario& s) {
  const ModelSpec& m = s.model;
  if (m.explicit_head_dim == 0)
    require(s, m.hidden % m.heads == 0, "model.hidden", m.hidden, "must be divisible by model.heads = " + str(m.heads));
  require(s, m.kv_heads <= m.heads && m.heads % m.kv_heads == 0, "model.kv_heads", m.kv_heads,
          "must divide model.heads = " + str(m.heads));
  require(s, m.top_k <= m.experts, "model.top_k", m.top_k, "must not exceed model.experts = " + str(m.experts));
  check_model_variants(s);
}

}  // namespace trainsim::schema
