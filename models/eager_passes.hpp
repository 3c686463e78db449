#pragma once
// The eager PyTorch passes Megatron-Core runs, beside its fused kernels, for three GPT-OSS
// features no fused kernel covers in the NeMo 25.11 recipe (Megatron-Bridge @ 00b7660b,
// Megatron-LM @ 92c8482e), each pass one torch op of its own kernel over HBM:
// - YaRN RoPE unfused (model.rope_scaling = yarn): Megatron-Bridge's
//   validate_rope_fusion_compatibility (src/megatron/bridge/utils/fusions.py) turns
//   apply_rope_fusion off for any position_embedding_type but "rope", and GPT-OSS's is "yarn"
//   (gpt_oss_provider.py); Megatron-Core then runs _apply_rotary_pos_emb_bshd
//   (models/common/embeddings/rope_utils.py) on the query and on the key.
// - the GLU's input clamp (model.activation_clamp): weighted_bias_quick_geglu_impl
//   (fusions/fused_bias_geglu.py) clamps the two halves and concatenates them, eagerly, before
//   its compiled activation.
// - the experts' second bias (model.bias on an MoE layer): TEGroupedMLP builds linear_fc2 with
//   skip_bias_add and adds each local expert's bias times its rows' probabilities in
//   _apply_bias (transformer/moe/experts.py), three torch ops an expert and a concatenation.
// - the attention's (and a dense MLP's) output bias under bias_dropout_fusion = false
//   (Megatron-Bridge's GPTOSSProvider sets it so): added eagerly, not in the fused
//   bias-dropout-add (training.bias_dropout_fusion).
// What these ops keep for backward is in models/activation_memory.cpp (eager_rotary_bytes,
// eager_clamp_bytes_per_width): the rotation's cos and sin tables and the clamp's input; the
// biases' adds keep nothing.
// The autograd engine issues the backward's kernels from C++: one Python call a pass.

#include "models/layer_workload.hpp"
#include "models/model_spec.hpp"
#include "models/parallel_spec.hpp"
#include "models/training_spec.hpp"

namespace trainsim {

/// HBM bytes (in multiples of the tensor it runs over) and kernels of one eager pass, forward
/// and backward.
struct EagerPassCount {
  double forward_bytes = 0, backward_bytes = 0;  ///< multiples of the tensor's bytes
  int forward_kernels = 0, backward_kernels = 0;
};

/// Unfused RoPE over one tensor t (the query or the key; _apply_rotary_pos_emb_bshd): forward
/// t*cos (2), -x2 of the half (1), cat(-x2, x1) (2), *sin (2), the add (3) and the final cat
/// with the empty pass-through part (2): 12 t, and six tiny kernels on the [s, d] frequencies
/// (cos, sin, each scaled and cast). Backward: the two products' gradients (2 + 2), the
/// negation (1), the chunk's gradient concatenated (2), the two paths summed (3) and the
/// slice's gradient (zeros, then the copy: 3): 13 t, 7 kernels.
EagerPassCount unfused_rope_pass();

/// The clamp over the fc1 output u (weighted_bias_quick_geglu_impl): forward the gate half
/// clamped (1), the linear half clamped (1), the halves concatenated (2): 4 u, 3 kernels.
/// Backward: clamp(max)'s gradient, a comparison and a where (0.75 + 1.25 of half-size and
/// bool tensors: 2 u), clamp(min, max)'s, two comparisons, their and, a where (3.5 u), and
/// the chunk's gradient concatenated (2 u): 7.5 u, 7 kernels.
EagerPassCount activation_clamp_pass();

/// A projection's bias added on its own (the unfused bias-dropout-add, x + bias) over its output
/// x: forward 2 x (and the bias), one kernel. Backward nothing the fused form does not do: the
/// add passes its gradient through, and the bias's gradient (a reduction over the tokens) is
/// computed by both forms alike.
EagerPassCount unfused_bias_pass();

/// The second bias of `local_experts` experts over the fc2 output y (_apply_bias): forward
/// per expert the bias times the probabilities (writes its rows: 1) and the add (3), then the
/// concatenation (2): 6 y, 2 E + 1 kernels. Backward per expert the bias's gradient (g p
/// summed over rows) and the probabilities' (g b summed over the hidden dim), a product and a
/// reduction each (3 + 3): 6 y, 4 E kernels. Bf16 probabilities (the router's dtype without
/// moe_router_dtype): an fp32 promotion would add more.
EagerPassCount expert_bias_pass(int local_experts);

/// Whether `m`'s rotation runs as the unfused passes: YaRN on plain RoPE (MLA's stays fused).
bool rotary_runs_eager(const ModelSpec& m);

/// Whether `m`'s experts clamp their GLU input eagerly: model.activation_clamp on a SwiGLU MoE.
bool clamps_glu_input(const ModelSpec& m);

/// `ops` (one transformer layer, models/layer_workload.hpp) with the passes above: the RoPE op
/// priced as the unfused passes (renamed attention.rotary_eager), the clamp before
/// experts.activation, the bias after experts.down (backward before experts.down.dgrad), the
/// unfused output biases after attention.proj and mlp.down (forward only); unchanged without
/// the features.
PassOps with_eager_passes(PassOps ops, const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p);

}  // namespace trainsim
