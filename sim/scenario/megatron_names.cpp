#include "sim/scenario/megatron_names.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim {

namespace {

using enum MegatronSpelling;
using enum MegatronTakes;

// Megatron's names, their defaults and choices, as Megatron-LM's arguments
// (megatron/training/arguments.py @ a62e2375, NVIDIA/Megatron-LM, Dec 2025: the release the
// NeMo 25.11 container pairs with; fp8_dot_product_attention is an argument from the
// TransformerConfig-generated arguments of @ d98e8a64) and Megatron-Bridge's ConfigContainer
// (src/megatron/bridge/training/config.py, mixed_precision.py, comm_overlap.py; Megatron-Core's
// TransformerConfig and ModelParallelConfig, which GPTModelProvider extends) @ 00b7660b,
// NVIDIA-NeMo/Megatron-Bridge, the 25.11 performance recipes' commit. A default is the one
// pretrain_gpt.py applies when the argument is not given.
// Columns: name, spelling, takes, key, values, Megatron's default, needs, note.
const std::vector<MegatronName> k_names{
    // [model]
    {"num_layers", both, value, "model.layers", "*", "", "", ""},
    {"hidden_size", both, value, "model.hidden", "*", "", "", ""},
    {"num_attention_heads", both, value, "model.heads", "*", "", "", ""},
    {"group_query_attention", argument, flag, "", "", "false", "", "num_query_groups counts only with it"},
    {"num_query_groups", both, value, "model.kv_heads", "*", "", "group_query_attention", "default: the heads"},
    {"kv_channels", both, value, "model.head_dim", "#head_dim", "", "", "0 when hidden / heads"},
    {"ffn_hidden_size", both, value, "model.ffn_hidden", "*", "", "",
     "default 4 x hidden, with swiglu int(8 x hidden / 3 / 64) x 64"},
    {"vocab_size", both, value, "model.vocab", "*", "", "", "the model section's (a recipe's tokenizer's is not read)"},
    {"seq_length", both, value, "model.seq_len", "*", "", "", ""},
    {"normalization", both, value, "model.norm", "LayerNorm=layernorm;RMSNorm=rmsnorm", "LayerNorm", "", ""},
    {"activation_func", config, value, "model.activation",
     "torch.nn.functional.gelu=gelu;torch.nn.functional.silu=swiglu;megatron.core.activations.squared_relu="
     "squared_relu",
     "torch.nn.functional.gelu", "", "a recipe's silu is gated (gated_linear_unit): swiglu"},
    {"gated_linear_unit", config, flag, "", "", "false", "", "read with activation_func"},
    {"swiglu", argument, flag, "model.activation", "true=swiglu;false=gelu", "false", "", ""},
    {"squared_relu", argument, flag, "model.activation", "true=squared_relu", "false", "", ""},
    {"position_embedding_type", both, value, "model.position_embedding", "learned_absolute=learned;rope=rope",
     "learned_absolute", "", ""},
    {"add_bias_linear", config, flag, "model.bias", "true=true;false=false", "true", "", ""},
    {"disable_bias_linear", argument, flag, "model.bias", "true=false;false=true", "false", "", ""},
    {"share_embeddings_and_output_weights", config, flag, "model.tied_embeddings", "true=true;false=false", "true", "",
     ""},
    {"untie_embeddings_and_output_weights", argument, flag, "model.tied_embeddings", "true=false;false=true", "false",
     "", ""},
    {"attention_dropout", both, value, "model.dropout", "#positive", "0.1", "", "dropout above 0"},
    {"hidden_dropout", both, value, "model.dropout", "#positive", "0.1", "", "dropout above 0; read after attention's"},
    {"qk_layernorm", both, flag, "model.qk_norm", "true=true;false=false", "false", "", ""},
    {"window_size", both, value, "model.sliding_window", "#window", "", "", "(left, right): the left"},
    {"num_experts", argument, value, "model.experts", "*", "", "", "none: dense (1)"},
    {"num_moe_experts", config, value, "model.experts", "*", "", "", ""},
    {"moe_router_topk", both, value, "model.top_k", "*", "2", "", ""},
    {"moe_ffn_hidden_size", both, value, "model.moe_ffn_hidden", "#moe_ffn", "", "", "0 when ffn_hidden_size"},
    {"moe_shared_expert_intermediate_size", both, value, "model.shared_expert_ffn_hidden", "*", "", "",
     "one shared expert of that size"},
    {"moe_layer_freq", both, value, "model.moe_layer_interval", "#layer_freq", "1", "",
     "N, or a list of 0s then 1s (dense_layers)"},
    {"moe_expert_capacity_factor", both, value, "model.capacity_factor", "*", "", "", "none: dropless (0)"},
    {"moe_pad_expert_input_to_capacity", both, flag, "model.pad_to_capacity", "true=true;false=false", "false", "", ""},
    {"moe_token_drop_policy", both, value, "model.token_drop_policy", "probs=probs;position=position", "probs", "", ""},
    {"moe_router_enable_expert_bias", both, flag, "model.router_bias", "true=true;false=false", "false", "", ""},
    {"moe_router_force_load_balancing", both, flag, "model.router_balance", "true=forced", "false", "", ""},
    {"moe_router_num_groups", both, value, "model.router_num_groups", "*", "", "", "none: no group limit (0)"},
    {"moe_router_group_topk", both, value, "model.router_group_topk", "*", "", "", "none: no group limit (0)"},
    {"multi_latent_attention", both, flag, "", "", "false", "", "the MLA sizes count only with it"},
    {"q_lora_rank", both, value, "model.q_lora_rank", "*", "", "multi_latent_attention", ""},
    {"kv_lora_rank", both, value, "model.kv_lora_rank", "*", "32", "multi_latent_attention", ""},
    {"qk_head_dim", both, value, "model.qk_nope_head_dim", "*", "128", "multi_latent_attention", ""},
    {"qk_pos_emb_head_dim", both, value, "model.qk_rope_head_dim", "*", "64", "multi_latent_attention", ""},
    {"v_head_dim", both, value, "model.v_head_dim", "*", "128", "multi_latent_attention", ""},
    {"mtp_num_layers", both, value, "model.mtp_depth", "*", "0", "", "none: 0"},
    // [training]
    {"micro_batch_size", both, value, "training.micro_batch", "*", "", "", ""},
    {"global_batch_size", both, value, "training.global_batch", "*", "", "", "none: one micro-batch per step"},
    {"bf16", both, flag, "training.precision", "true=bf16;false=fp32", "false", "", ""},
    {"fp16", both, flag, "training.precision", "true=fp16", "false", "", ""},
    {"fp8_format", argument, value, "training.precision", "e4m3=fp8;hybrid=fp8", "", "", ""},
    {"fp8", config, value, "training.precision", "e4m3=fp8;hybrid=fp8", "", "", ""},
    {"fp8_recipe", both, value, "training.precision", "delayed=fp8;tensorwise=fp8;mxfp8=mxfp8", "delayed",
     "fp8_format|fp8", "blockwise and custom are not modelled"},
    {"fp4_format", argument, value, "training.precision", "e2m1=nvfp4", "", "", ""},
    {"fp4", config, value, "training.precision", "e2m1=nvfp4", "", "", ""},
    {"fp4_recipe", both, value, "training.precision", "nvfp4=nvfp4", "nvfp4", "fp4_format|fp4", ""},
    {"fp8_dot_product_attention", both, flag, "training.attention_precision", "true=fp8;false=bf16", "false", "", ""},
    {"first_last_layers_bf16", both, flag, "training.first_last_layers_bf16", "true=true;false=false", "false", "", ""},
    {"num_layers_at_start_in_bf16", both, value, "training.num_layers_at_start_in_bf16", "*", "1",
     "first_last_layers_bf16", ""},
    {"num_layers_at_end_in_bf16", both, value, "training.num_layers_at_end_in_bf16", "*", "1", "first_last_layers_bf16",
     ""},
    {"accumulate_allreduce_grads_in_fp32", argument, flag, "training.grad_precision", "true=fp32", "false", "",
     "none: auto (fp32 under bf16)"},
    {"grad_reduce_in_bf16", argument, flag, "training.grad_precision", "true=bf16", "false", "", ""},
    {"grad_reduce_in_fp32", config, flag, "training.grad_precision", "true=fp32;false=bf16", "", "", ""},
    {"optimizer", both, value, "training.optimizer", "adam=adam;sgd=sgd", "adam", "", ""},
    {"optimizer_cpu_offload", both, flag, "training.offload", "true=cpu;false=none", "false", "", ""},
    {"cpu_offloading", config, flag, "", "", "false", "", "cpu_offloading_num_layers counts only with it"},
    {"cpu_offloading_num_layers", both, value, "training.offload_activations", "*", "", "cpu_offloading", ""},
    {"recompute_granularity", both, value, "training.recompute", "full=full;selective=selective;none=none", "none", "",
     ""},
    {"recompute_method", both, value, "", "", "", "", "block: recompute_num_layers counts"},
    {"recompute_num_layers", both, value, "training.recompute_layers", "*", "", "recompute_method=block",
     "uniform: every layer (0)"},
    {"cross_entropy_loss_fusion", both, flag, "", "", "false", "", "cross_entropy_fusion_impl counts only with it"},
    {"cross_entropy_fusion_impl", both, value, "training.fused_cross_entropy", "te=true;native=false", "native",
     "cross_entropy_loss_fusion", "Transformer Engine's fused loss"},
    {"cuda_graph_impl", both, value, "training.cuda_graphs", "#cuda_graphs", "none", "", "none: no graphs"},
    {"enable_cuda_graph", both, flag, "training.cuda_graphs", "#cuda_graphs", "false", "", "cuda_graph_impl local"},
    {"external_cuda_graph", both, flag, "training.cuda_graphs", "#cuda_graphs", "false", "",
     "cuda_graph_impl transformer_engine"},
    {"cuda_graph_scope", both, value, "training.cuda_graphs", "#cuda_graphs", "full", "",
     "full: attn+mlp (a whole layer); a list joined by +"},
    // [parallel]
    {"tensor_model_parallel_size", both, value, "parallel.tp", "*", "1", "", ""},
    {"pipeline_model_parallel_size", both, value, "parallel.pp", "*", "1", "", ""},
    {"context_parallel_size", both, value, "parallel.cp", "*", "1", "", ""},
    {"expert_model_parallel_size", both, value, "parallel.ep", "*", "1", "", ""},
    {"expert_tensor_parallel_size", both, value, "parallel.expert_tp", "#expert_tp", "", "", "0 when tp"},
    {"sequence_parallel", both, flag, "parallel.sequence_parallel", "true=true;false=false", "false", "", ""},
    {"cp_comm_type", both, value, "parallel.cp_algo", "p2p=ring;all_gather=all-gather", "p2p", "",
     "a2a is not modelled"},
    {"use_distributed_optimizer", both, flag, "parallel.zero", "true=1;false=0", "false", "", ""},
    {"use_megatron_fsdp", both, flag, "parallel.fsdp", "true=megatron;false=none", "false", "", ""},
    {"data_parallel_sharding_strategy", both, value, "parallel.zero",
     "no_shard=0;optim=1;optim_grads=2;optim_grads_params=3", "no_shard", "use_megatron_fsdp", ""},
    {"num_virtual_stages_per_pipeline_rank", argument, value, "parallel.virtual_stages", "*", "", "",
     "schedule interleaved when > 1"},
    {"num_layers_per_virtual_pipeline_stage", argument, value, "parallel.virtual_stages", "#per_virtual_stage", "", "",
     "layers / (pp x it)"},
    {"virtual_pipeline_model_parallel_size", config, value, "parallel.virtual_stages", "*", "", "", ""},
    {"microbatch_group_size_per_virtual_pipeline_stage", argument, value, "parallel.microbatch_group",
     "#microbatch_group", "", "", "0 when pp"},
    {"microbatch_group_size_per_vp_stage", config, value, "parallel.microbatch_group", "#microbatch_group", "", "", ""},
    {"account_for_embedding_in_pipeline_split", both, flag, "parallel.stage_split", "true=even-with-ends;false=even",
     "false", "", "Megatron splits layers evenly"},
    {"account_for_loss_in_pipeline_split", both, flag, "parallel.stage_split", "true=even-with-ends", "false", "", ""},
    {"pipeline_model_parallel_layout", both, value, "parallel.pipeline_layout", "*", "", "", ""},
    {"overlap_grad_reduce", both, flag, "parallel.overlap_grad_reduce", "true=true;false=false", "false", "", ""},
    {"overlap_param_gather", both, flag, "parallel.overlap_param_gather", "true=true;false=false", "false", "", ""},
    {"tp_comm_overlap", both, flag, "parallel.tp_comm_overlap", "true=true;false=false", "false", "", ""},
    {"overlap_p2p_comm", config, flag, "parallel.pp_comm_overlap", "true=auto;false=false", "true", "",
     "true: with interleaving (auto)"},
    {"no_overlap_p2p_communication", argument, flag, "parallel.pp_comm_overlap", "true=false;false=auto", "false", "",
     ""},
    {"overlap_moe_expert_parallel_comm", both, flag, "parallel.moe_a2a_overlap", "true=true;false=false", "false", "",
     ""},
    {"delay_wgrad_compute", both, flag, "parallel.delay_wgrad_compute", "true=true;false=false", "false", "", ""},
    {"moe_token_dispatcher_type", both, value, "parallel.moe_dispatcher", "alltoall=alltoall;flex=", "allgather", "",
     "allgather is not modelled; flex: the backend"},
    {"moe_enable_deepep", argument, flag, "parallel.moe_dispatcher", "true=deepep", "false", "", ""},
    {"moe_flex_dispatcher_backend", both, value, "parallel.moe_dispatcher", "deepep=deepep;hybridep=hybridep", "deepep",
     "moe_token_dispatcher_type=flex", ""},
    {"moe_deepep_num_sms", both, value, "parallel.moe_dispatcher_sms", "*", "20", "moe_flex_dispatcher_backend=deepep",
     ""},
    {"moe_hybridep_num_sms", both, value, "parallel.moe_dispatcher_sms", "*", "16",
     "moe_flex_dispatcher_backend=hybridep", ""},
    {"use_tp_pp_dp_mapping", both, flag, "parallel.order", "true=tp-cp-ep-pp-dp;false=tp-cp-ep-dp-pp", "false", "",
     "megatron/training/initialize.py's order"},
};

std::string underscores_to_dashes(std::string_view name) {
  std::string text(name);
  std::replace(text.begin(), text.end(), '_', '-');
  return text;
}

}  // namespace

std::string MegatronName::argument() const {
  return "--" + underscores_to_dashes(name);
}

std::optional<std::string> MegatronName::translate(std::string_view text) const {
  if (key.empty() || values.starts_with("#")) return std::nullopt;
  if (values == "*") return std::string(text);
  for (const std::string_view pair : parse::pieces(values, ";")) {
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) == text) return std::string(pair.substr(eq + 1));
  }
  return std::nullopt;
}

std::string MegatronName::accepted_values() const {
  if (values == "*" || values.starts_with("#") || key.empty()) return "a value";
  std::string text;
  const std::vector<std::string_view> pairs = parse::pieces(values, ";");
  for (size_t i = 0; i < pairs.size(); ++i)
    text += std::string(i == 0                  ? ""
                        : i + 1 == pairs.size() ? " or "
                                                : ", ") +
            std::string(pairs[i].substr(0, pairs[i].find('=')));
  return text;
}

const std::vector<MegatronName>& megatron_names() {
  return k_names;
}

const MegatronName* megatron_argument(std::string_view name) {
  for (const MegatronName& n : k_names)
    if (n.name == name && n.spelled_as_argument()) return &n;
  return nullptr;
}

const MegatronName* megatron_config_field(std::string_view name) {
  for (const MegatronName& n : k_names)
    if (n.name == name && n.spelled_in_config()) return &n;
  return nullptr;
}

std::optional<IniEntry> megatron_alias(const IniEntry& entry) {
  const auto dot = entry.name.find('.');
  if (dot == std::string::npos) return std::nullopt;
  const std::string section = entry.name.substr(0, dot);
  std::string name = entry.name.substr(dot + 1);
  std::replace(name.begin(), name.end(), '-', '_');  // tensor-model-parallel-size, as the argument
  for (const MegatronName& n : k_names) {
    if (n.name != name || n.key.empty() || n.values.starts_with("#")) continue;
    if (n.key.substr(0, n.key.find('.')) != section) continue;
    const auto value = n.translate(entry.value);
    if (value && value->empty())  // a value another name gives the key (flex: its backend)
      throw InputError(entry.origin, entry.name, entry.value,
                       "sets nothing by itself: the key is given by another of Megatron's names (docs/megatron-names.md)");
    if (!value)
      throw InputError(entry.origin, entry.name, entry.value,
                       "Megatron's " + name + " (alias of " + std::string(n.key) + ") takes " + n.accepted_values());
    return IniEntry{std::string(n.key), *value, entry.origin};
  }
  return std::nullopt;
}

std::string megatron_names_markdown() {
  std::string text =
      "| Megatron's name | argument | config | scenario key | values | Megatron's default | counts with | note |\n"
      "|---|---|---|---|---|---|---|---|\n";
  const auto cell = [](std::string_view s) { return s.empty() ? std::string() : "`" + std::string(s) + "`"; };
  for (const MegatronName& n : k_names) {
    std::string values;
    if (n.values.starts_with("#")) {
      values = "worked out";
    } else if (n.values == "*") {
      values = "as written";
    } else {
      for (const std::string_view pair : parse::pieces(n.values, ";"))
        values += (values.empty() ? "" : " ") + cell(pair.ends_with("=") ? std::string(pair) + "(another row)" : pair);
    }
    text += "| `" + std::string(n.name) + "` | " + (n.spelled_as_argument() ? "yes" : "") + " | " +
            (n.spelled_in_config() ? "yes" : "") + " | " + (n.key.empty() ? std::string("(condition)") : cell(n.key)) +
            " | " + values + " | " + cell(n.megatron_default) + " | " + cell(n.needs) + " | " + std::string(n.note) +
            " |\n";
  }
  return text;
}

}  // namespace trainsim
