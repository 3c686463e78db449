#pragma once
// Model-state memory (weights, gradients, optimizer states) per GPU under ZeRO,
// following Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training
// Trillion Parameter Models", §3.1 and §5: mixed-precision Adam keeps 2Ψ fp16 weights,
// 2Ψ fp16 gradients and KΨ optimizer states (K = 12: fp32 master copy, momentum and
// variance); stage 1 shards the optimizer states, stage 2 also the gradients, stage 3
// also the weights, each over the Nd data-parallel ranks.

#include "models/training_spec.hpp"

namespace trainsim {

/// Bytes per parameter of each model-state category, before sharding.
struct StateBytesPerParameter {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
};

/// bf16/fp16: 2 + 2 + 12 with Adam (ZeRO §3.1), 2 + 2 + 8 with SGD (fp32 master + momentum).
/// fp8: weights and gradients are kept in bf16 (fp8 is a per-GEMM cast), so as bf16.
/// fp32: 4 + 4 + 8 with Adam (two moments), 4 + 4 + 4 with SGD (momentum).
StateBytesPerParameter state_bytes_per_parameter(Precision precision, Optimizer optimizer);

/// As above, with the gradients in training.grad_precision: Megatron-LM's bf16 default of fp32
/// gradients gives 2 + 4 + 12 = 18 bytes per parameter with Adam (6 + 12/d with the
/// distributed optimizer, ZeRO-1).
StateBytesPerParameter state_bytes_per_parameter(const TrainingSpec& training);

struct ModelStateBytes {
  double weights = 0;
  double gradients = 0;
  double optimizer_states = 0;
  double total() const { return weights + gradients + optimizer_states; }
};

/// Per-GPU model-state bytes for `parameters` parameters replicated over `shard_ranks`
/// data-parallel ranks at ZeRO stage `zero` (0-3).
/// ZeRO Table 1: Ψ = 7.5e9, Nd = 64 gives 120 / 31.4 / 16.6 / 1.88 GB for stages 0-3.
ModelStateBytes model_state_bytes(double parameters, const StateBytesPerParameter& per_param, int zero,
                                  int shard_ranks);

}  // namespace trainsim
