#include "models/activation_memory.hpp"

#include "models/eager_passes.hpp"
#include "models/expert_capacity.hpp"

namespace trainsim {

namespace {

struct Dims {
  double s;     ///< tokens of the sequence on this rank (seq_len / cp)
  double keys;  ///< tokens each query attends over (the full sequence)
  double b;
  double h;
  double a;
  double t;
  double sp_divisor;  ///< t with sequence parallelism, else 1: divides the "unsplit" parts
  double q;           ///< bytes of a saved GEMM input element (ActivationLayout::gemm_input_bytes)
  bool projection_original = false;  ///< ActivationLayout::projection_saves_original_input
};

Dims dims_of(const ModelSpec& m, const ActivationLayout& l) {
  Dims d{};
  d.s = static_cast<double>(m.seq_len) / l.cp;
  d.keys = m.seq_len;
  d.b = l.micro_batch;
  d.h = m.hidden;
  d.a = m.heads;
  d.t = l.tp;
  d.sp_divisor = l.sequence_parallel ? d.t : 1.0;
  d.q = l.gemm_input_bytes;
  d.projection_original = l.projection_saves_original_input;
  return d;
}

// Korthikanti §4.1: the parts that tensor parallelism does not split (10 s b h with
// dropout): attention and MLP inputs (2 s b h each), two dropout masks (s b h each), two
// normed inputs (2 s b h each; the QKV and FC1 GEMMs' inputs, q s b h each when quantized:
// Transformer Engine's LayerNormLinear saves the FP8 ln_out its GEMM read and transposes it
// in FP8 for the weight gradient, NVIDIA/TransformerEngine
// transformer_engine/pytorch/module/layernorm_linear.py @ 0004dbd0).
double unsplit_bytes(const ModelSpec& m, const Dims& d) {
  const double dropout = m.dropout ? 1.0 : 0.0;
  // A parallel block (GPT-J, PaLM) keeps the layer's input and the one normed input both
  // sub-layers read.
  const double base = m.parallel_block ? 2.0 + d.q : 2.0 * (2.0 + d.q);
  double bytes = (base + 2.0 * dropout) * d.s * d.b * d.h;
  // MLA's latents (the query's q_lora_rank, the key-value's kv_lora_rank + rope) come out of
  // down-projections every TP rank runs whole; their normed copies feed the up-projections.
  if (m.is_mla()) bytes += (2.0 + d.q) * d.s * d.b * (m.q_lora_rank + m.kv_lora_rank + m.qk_rope_head_dim);
  return bytes;
}

// The bytes the MLP keeps per element of its FFN width: GeLU its input (2) and output (the
// FC2 GEMM's input, q); SwiGLU the gate and up outputs (2 each) and their product (q).
double mlp_bytes_per_width(const ModelSpec& m, const Dims& d) {
  return (m.activation == FfnActivation::swiglu ? 4.0 : 2.0) + d.q;
}

// Under a quantized format the output projection saves its FP8 input beside the 16-bit
// attention output the fused attention's backward keeps: (q) bytes per element more; none
// where it saves the 16-bit input itself (models/original_input_casts.hpp).
double projection_copy_bytes(const Dims& d) {
  return d.q < 2.0 && !d.projection_original ? d.q : 0.0;
}

// What the eager passes of GPT-OSS's recipe (models/eager_passes.hpp) keep for backward, as
// PyTorch's autograd saves tensors: an op's input only where a needed gradient's formula reads
// it (pytorch/pytorch tools/autograd/derivatives.yaml, and gen_variable_type.py's guard_for @
// 9e69e8210c01ff23aff82df3806f7dbe0ec106d2, which saves mul's `self` only when `other` needs a
// gradient); add, neg, chunk, slices and cat keep none (their gradients need shapes only).
// - The unfused rotation (_apply_rotary_pos_emb_bshd, Megatron-LM @ 92c8482e): t * cos_ and
//   rotate_half(t) * sin_ keep cos_ and sin_, which need no gradient (t is not kept); each a
//   [s, 1, 1, d] table in the activations' dtype made anew for the query and for the key: 4 s d
//   a layer, whatever the batch, the heads and TP. With the fused kernel nothing but the
//   frequencies (shared by every layer) is kept. MLA's rotation stays fused here as there.
double eager_rotary_bytes(const ModelSpec& m, const Dims& d) {
  if (!rotary_runs_eager(m)) return 0.0;
  return 4.0 * 2.0 * d.s * m.head_dim();
}

// - The GLU's clamp (weighted_bias_quick_geglu_impl, Megatron-LM @ 92c8482e): clamp saves its
//   input (derivatives.yaml: clamp_backward(grad, self, min, max)), and both halves are views of
//   the experts' fc1 output, so that output (2 f a routed row, 2 bytes an element) stays
//   beside the concatenation the activation saves: 4 bytes per element of the experts' width.
// - The experts' second bias (_apply_bias) keeps nothing more: b * p saves the bias (a
//   parameter) and the probabilities (views of those the activation saves); the add, the
//   split and the concatenation keep none.
double eager_clamp_bytes_per_width(const ModelSpec& m) {
  return clamps_glu_input(m) ? 4.0 : 0.0;
}

// The parts tensor parallelism splits, without the attention core: Q (2 s b h), K and V
// (2 s b h each for MHA, scaled by kv_heads / heads for GQA), the output projection's input
// (2 s b h), and the MLP's wide activations (GeLU: its input and output, 2 s b f each;
// SwiGLU: gate and up outputs and their product, 2 s b f each). MoE: top_k experts per token,
// at the padded rows or the rank budget's buffer where the shapes are static
// (models/expert_capacity.hpp).
double split_linear_bytes(const ModelSpec& m, const Dims& d) {
  const double routed = m.is_moe() ? m.top_k * expert_buffer_share(m, d.s * d.b / d.sp_divisor) : 1.0;
  const double wide = mlp_bytes_per_width(m, d);
  // The routed experts' fc1 output the clamp keeps (eager_clamp_bytes_per_width).
  const double clamp = eager_clamp_bytes_per_width(m) * d.s * d.b * static_cast<double>(m.expert_ffn()) * routed;
  if (!m.is_mla() && m.explicit_head_dim == 0 && m.shared_experts == 0 && m.moe_ffn_hidden == 0) {
    const double kv_ratio = static_cast<double>(m.kv_heads) / m.heads;
    const double attention = (4.0 + 4.0 * kv_ratio + projection_copy_bytes(d)) * d.s * d.b * d.h;
    const double mlp = wide * d.s * d.b * m.ffn_hidden * routed;
    return attention + mlp + clamp;
  }
  // Q (heads x qk), K and V (kv heads x (qk + v); MLA: every head's, after the up-projection),
  // and the output projection's input (heads x v), 2 bytes an element.
  const double a = m.heads;
  const double kv = m.is_mla() ? a : m.kv_heads;
  const double attention =
      2.0 * d.s * d.b * (a * m.qk_head_dim() + kv * (m.qk_head_dim() + m.value_head_dim()) + a * m.value_head_dim()) +
      projection_copy_bytes(d) * d.s * d.b * a * m.value_head_dim();
  double mlp = wide * d.s * d.b * (m.is_moe() ? static_cast<double>(m.expert_ffn()) * routed : m.ffn_hidden);
  if (m.is_moe()) mlp += wide * d.s * d.b * m.shared_experts * static_cast<double>(m.shared_ffn());
  return attention + mlp + clamp;
}

// The attention core. Standard attention keeps the softmax output (2 a s^2 b) and, with
// dropout, its mask (a s^2 b) and output (2 a s^2 b): 5 a s^2 b (Korthikanti §4.1).
// Fused attention keeps only the fp32 log-sum-exp per query and head (4 a s b).
double attention_core_bytes(const ModelSpec& m, const Dims& d, AttentionKernel kernel) {
  if (kernel == AttentionKernel::flash) return 4.0 * d.a * d.s * d.b;
  const double per_score = m.dropout ? 5.0 : 2.0;
  return per_score * d.a * d.s * d.keys * d.b;
}

double stored_without_recompute(const ModelSpec& m, const Dims& d, AttentionKernel kernel) {
  return unsplit_bytes(m, d) / d.sp_divisor + (split_linear_bytes(m, d) + attention_core_bytes(m, d, kernel)) / d.t +
         eager_rotary_bytes(m, d);
}

}  // namespace

double layer_activation_bytes(const ModelSpec& m, const ActivationLayout& l) {
  const Dims d = dims_of(m, l);
  switch (l.recompute) {
    case Recompute::none:
      return stored_without_recompute(m, d, l.attention);
    case Recompute::selective:
      // Selective recompute drops the attention core of standard attention (Korthikanti
      // §5); fused attention already recomputes its core, so nothing more is dropped.
      return unsplit_bytes(m, d) / d.sp_divisor + split_linear_bytes(m, d) / d.t +
             (l.attention == AttentionKernel::flash ? attention_core_bytes(m, d, l.attention) / d.t : 0.0) +
             eager_rotary_bytes(m, d);
    case Recompute::full:
      return 2.0 * d.s * d.b * d.h / d.sp_divisor;
  }
  return 0.0;
}

double recompute_working_bytes(const ModelSpec& m, const ActivationLayout& l) {
  if (l.recompute != Recompute::full) return 0.0;
  return stored_without_recompute(m, dims_of(m, l), l.attention);
}

double embedding_activation_bytes(const ModelSpec& m, const ActivationLayout& l) {
  const Dims d = dims_of(m, l);
  return m.dropout ? d.s * d.b * d.h / d.sp_divisor : 0.0;
}

double output_activation_bytes(const ModelSpec& m, const ActivationLayout& l) {
  const Dims d = dims_of(m, l);
  const double logits = l.fused_cross_entropy ? 2.0 : 4.0;
  return 4.0 * d.s * d.b * d.h / d.sp_divisor + logits * d.s * d.b * m.vocab / d.t;
}

}  // namespace trainsim
