#pragma once
// The output projection that keeps its 16-bit input for backward (save_original_input).
//
// Under every quantized recipe but fp8 delayed scaling, Megatron-Core sets Transformer Engine's
// save_original_input on the attention's linear_proj: "the output of the fused core_attn is
// saved by itself, and linear_proj also saves the quantized tensor of this output", so the
// projection keeps the bf16 tensor attention already keeps instead (NVIDIA/Megatron-LM
// megatron/core/transformer/attention.py @ d98e8a64, set_save_original_input(self.linear_proj)
// for fp8 with fp8_recipe != delayed on TE >= 2.6 and for fp4 on TE >= 2.7; since 781e7658,
// 2025-08-19, in every container from 25.09). What Transformer Engine then runs
// (TransformerEngine @ v2.14, pytorch/module/linear.py, _Linear.forward and backward):
// - forward: the input quantizer's column-wise usage is turned off (columnwise =
//   backward_needs_input and not save_original_input): the cast writes the row-wise copy the
//   forward GEMM reads, and nothing is kept quantized;
// - backward: before the weight-gradient GEMM the saved bf16 input is cast again, column-wise
//   only (input_quantizer.set_usage(rowwise=False, columnwise=True)), with its amax pass where
//   the format takes one.
// So the projection's input is read twice from 16 bits and written once a copy; the copy the
// activation memory counted beside attention's output is not kept (activation_memory.cpp).
// Delayed scaling cannot do it (linear.py asserts against Float8Quantizer).

#include "models/layer_workload.hpp"
#include "models/training_spec.hpp"

namespace trainsim {

/// Whether the output projection saves its 16-bit input rather than its quantized copy under
/// `training`: a quantized format other than fp8 with delayed scaling (the rules above).
bool projection_saves_original_input(const TrainingSpec& training);

/// Rewrites one layer's ops where projection_saves_original_input holds: the forward (and
/// recomputed) `attention.proj.quantize` casts one copy, and the backward casts the saved
/// input again, column-wise (`attention.proj.quantize.input`), just before
/// `attention.proj.wgrad`. A layer whose projection is not quantized (first_last_layers_bf16)
/// has no such cast and is left as it is.
void apply_original_input_casts(PassOps& ops, const TrainingSpec& training);

}  // namespace trainsim
