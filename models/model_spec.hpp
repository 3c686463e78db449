#pragma once
// The shape of a decoder-only transformer, as a value type. Filled from a preset
// (models/presets/<name>.ini, models/model_presets.hpp) and explicit scenario keys; validated at the boundary.

#include <string>

namespace trainsim {

// squared_relu: relu(x)^2 with two matrices, as GeLU (So et al. 2021, "Primer" §3;
// Nemotron-4 15B/340B technical reports, §2).
enum class FfnActivation { gelu, swiglu, squared_relu };
enum class NormKind { layernorm, rmsnorm };
enum class PositionEmbedding { learned, rope };
/// Rotary frequencies as trained (none) or stretched by YaRN (Peng et al. 2023, "YaRN", §3.2;
/// GPT-OSS's rope_scaling). Megatron-Bridge fuses plain RoPE only (models/eager_passes.hpp).
enum class RopeScaling { none, yarn };
/// Which tokens an over-capacity expert drops (Megatron-Core's moe_token_drop_policy): those of
/// lowest routing probability, or those latest in the batch. Timing does not depend on it.
enum class TokenDropPolicy { probs, position };

struct ModelSpec {
  std::string name = "custom";
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;    ///< key/value heads (GQA); equal to heads for multi-head attention
  int ffn_hidden = 0;  ///< per expert for mixture-of-experts models
  int vocab = 0;
  int seq_len = 0;
  int experts = 1;  ///< 1 = dense MLP
  int top_k = 1;    ///< experts each token is routed to
  /// Tokens an expert accepts, as a multiple of its balanced share (0: no cap, dropless).
  double capacity_factor = 0;
  /// Every expert runs exactly its capacity of rows, the missing ones padded (Megatron-Core's
  /// moe_pad_expert_input_to_capacity; needs capacity_factor > 0): static shapes, no host sync
  /// (models/expert_capacity.hpp).
  bool pad_to_capacity = false;
  TokenDropPolicy token_drop_policy = TokenDropPolicy::probs;
  /// Each expert-parallel rank's token budget as a multiple of its balanced share (Megatron-Core's
  /// moe_expert_rank_capacity_factor, HybridEP; 0: none): static buffers, no host sync.
  double rank_capacity_factor = 0;
  /// Router imbalance: coefficient of variation of the experts' token counts (0: balanced).
  double expert_imbalance = 0;
  /// The busiest expert-parallel rank's tokens over the balanced share, stated for every MoE
  /// layer (model.router_balance): 1 is Megatron-Core's forced balance
  /// (moe_router_force_load_balancing, what the NeMo benchmark rows ran).
  double router_load = 1.0;
  /// model.router_balance = aux_loss: the loads a router trained with an auxiliary balance loss
  /// leaves, drawn from the measured spread of models/expert_load.hpp (not a stated factor).
  bool router_aux_loss = false;
  /// Group-limited routing (Megatron-Core's moe_router_num_groups, moe_router_group_topk; 0:
  /// none): the experts in router_num_groups equal groups, each token's top_k chosen inside
  /// router_group_topk of them (DeepSeek-V3 §2.1.2: 8 groups, one a node, 4 per token).
  int router_num_groups = 0;
  int router_group_topk = 0;
  FfnActivation activation = FfnActivation::swiglu;
  NormKind norm = NormKind::rmsnorm;
  PositionEmbedding position = PositionEmbedding::rope;
  RopeScaling rope_scaling = RopeScaling::none;
  /// The GLU's gate clamped to at most this and its linear half to +-this before the activation
  /// (GPT-OSS's swiglu_limit 7; Megatron-Core's activation_func_clamp_value); 0: no clamp.
  double activation_clamp = 0;
  bool bias = false;             ///< linear layers and norms carry biases (GPT-2/3 style)
  bool tied_embeddings = false;  ///< output projection shares the input embedding
  bool dropout = false;          ///< dropout layers present (their masks are stored)

  // Attention beyond GQA.
  int explicit_head_dim = 0;  ///< head dimension when not hidden / heads (Qwen3, GPT-OSS); 0: hidden / heads
  bool qk_norm = false;       ///< RMSNorm on each query and key head (Qwen3): 2 head_dim parameters a layer
  /// Multi-head latent attention (DeepSeek-V2 §2.1, DeepSeek-V3 §2.1.1): queries through a
  /// rank-q_lora_rank bottleneck (0: a full h x heads (nope + rope) projection), keys and values
  /// through a rank-kv_lora_rank latent, plus a decoupled rotary key of qk_rope_head_dim shared
  /// by all heads. MLA is on when kv_lora_rank > 0.
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_rope_head_dim = 0;
  int qk_nope_head_dim = 0;
  int v_head_dim = 0;
  /// Sliding-window attention: each query attends over the last `sliding_window` tokens (0:
  /// the whole sequence). With full_attention_interval k > 0, every k-th layer (layers k-1,
  /// 2k-1, ...) attends over the whole sequence (GPT-OSS: k = 2, window 128; Gemma 3: k = 6);
  /// with 0, every layer is windowed (Mistral 7B).
  int sliding_window = 0;
  int full_attention_interval = 0;
  bool attention_sinks = false;  ///< a learned logit per head in the softmax's denominator (GPT-OSS)
  /// Attention and MLP read the same normalised input and their outputs are summed (GPT-J,
  /// PaLM §2 "Parallel Layers"): one norm a layer, one residual add.
  bool parallel_block = false;

  // Mixture of experts beyond one expert size.
  int moe_ffn_hidden = 0;            ///< routed experts' inner size (fine-grained experts); 0: ffn_hidden
  int shared_experts = 0;            ///< always-active experts beside the routed ones (DeepSeekMoE)
  int shared_expert_ffn_hidden = 0;  ///< inner size of each shared expert; 0: the routed experts'
  int dense_layers = 0;              ///< the first layers have a dense MLP of ffn_hidden (DeepSeek-V3: 3)
  /// After the dense_layers, every k-th layer is an MoE layer (layers k-1, 2k-1, ...: Llama 4's
  /// interleave_moe_layer_step), the others dense; 1: every one.
  int moe_layer_interval = 1;
  bool router_bias = false;  ///< the router has a bias per expert (GPT-OSS; DeepSeek-V3's correction bias)
  /// Multi-token prediction modules (DeepSeek-V3 §2.2): each one a projection of 2h -> h, two
  /// norms, one more transformer layer of the last layer's kind and the shared output layer,
  /// run on the last pipeline stage.
  int mtp_depth = 0;

  bool operator==(const ModelSpec&) const = default;
  int head_dim() const { return explicit_head_dim > 0 ? explicit_head_dim : hidden / heads; }
  bool is_moe() const { return experts > 1; }
  bool is_mla() const { return kv_lora_rank > 0; }
  /// Each token's experts lie in fewer groups than there are (model.router_group_topk).
  bool group_limited() const {
    return router_num_groups > 1 && router_group_topk > 0 && router_group_topk < router_num_groups;
  }
  int expert_ffn() const { return moe_ffn_hidden > 0 ? moe_ffn_hidden : ffn_hidden; }
  int shared_ffn() const { return shared_expert_ffn_hidden > 0 ? shared_expert_ffn_hidden : expert_ffn(); }
  /// Width of one head's query and key: head_dim, or with MLA qk_nope_head_dim + qk_rope_head_dim.
  int qk_head_dim() const { return is_mla() ? qk_nope_head_dim + qk_rope_head_dim : head_dim(); }
  /// Width of one head's value (and of the output projection's input per head).
  int value_head_dim() const { return is_mla() ? v_head_dim : head_dim(); }
  /// Key plus value elements per token after projection (what ring attention exchanges): MLA
  /// up-projects them per head.
  double kv_width() const {
    return is_mla() ? static_cast<double>(heads) * (qk_head_dim() + value_head_dim()) : 2.0 * kv_heads * head_dim();
  }
};

}  // namespace trainsim
