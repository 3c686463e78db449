#pragma once
// The kernels Transformer Engine runs to turn a bf16 tensor into a quantized GEMM operand
// (fp8 with current scaling, mxfp8, nvfp4): an amax pass where the format's scale needs the
// tensor's absolute maximum, the cast itself (row-wise and column-wise copies with their block
// scales), and, for the block-scaled formats, the swizzle of a weight's scales into the layout
// the tensor cores read. All memory-bound: one op of the bytes its kernels read and write, timed
// as any streaming kernel, one op per framework call (its kernels launched by that call: the
// host pays one dispatch, sim/step/host_bound_pass.hpp; the GPU a launch gap per kernel).
//
// Which tensors are cast when (Transformer Engine @ 8f2e6357, pytorch/module/linear.py):
// a Linear's input is cast in its forward, row-wise for the forward GEMM and column-wise for
// the weight-gradient GEMM; the gradient of its output in its backward, row-wise for the
// input-gradient GEMM and column-wise for the weight-gradient one; its weight row-wise and
// column-wise, once per step when Megatron-Core passes is_first_microbatch (the cast copy is
// kept for the step's other micro-batches).
//
// An fp8 operand all-gathered over the TP group before its GEMM (sequence parallelism: a
// column-parallel layer's input, a row-parallel layer's output gradient) on a GPU whose fp8
// GEMMs read only K-major operands (Hopper) is cast row-wise only: Transformer Engine cannot
// gather the column-wise copy (TransformerEngine @ d0067d0d, pytorch/module/linear.py and
// layernorm_linear.py set columnwise=False on the input quantizer before the gather; and
// distributed.py _all_gather_fp8), so the weight-gradient GEMM's column-wise copy is the
// transpose of the gathered tensor, made in the backward (update_usage(columnwise_usage=True)
// on the gathered Float8Tensor: _create_transpose, one kernel reading and writing one byte an
// element of all tp shards). Transformer Engine 1.x did the same (v1.0 layernorm_linear.py:
// fp8_transpose of ln_out_total; linear.py: of the userbuffers-gathered grad_output).

#include <optional>
#include <string>
#include <vector>

#include "models/op.hpp"
#include "models/training_spec.hpp"

namespace trainsim {

/// What casting one element of a bf16 tensor costs in a format, per element: the amax pass's
/// reads (0: none) and the cast's reads and writes, and the kernels of each. Delayed scaling
/// (fp8 with training.fp8_scaling = delayed) takes no amax pass: its scale comes from the amax
/// history and the cast kernel records the tensor's amax as it writes (TransformerEngine
/// @ d0067d0d, pytorch/csrc/quantizer.cpp: Float8Quantizer::quantize is one nvte_quantize_v2,
/// where Float8CurrentScalingQuantizer::quantize_impl runs nvte_compute_amax first).
struct CastBytes {
  double amax = 0;
  int amax_kernels = 0;
  double cast = 0;
  int cast_kernels = 0;
  /// Bytes of the block scales of one copy, per element (1/32 mxfp8, 1/16 nvfp4; 0: fp8's one
  /// per-tensor scale).
  double scales = 0;
};

/// The cast of a tensor into `copies` copies: 2, the row-wise and the column-wise one its GEMMs
/// read in training; 1, one of them (or fp8 on a GPU whose tensor cores read one copy in any
/// layout, TrainingSpec::fp8_single_copy). {} for a precision that is not quantized.
CastBytes cast_bytes(Precision precision, int copies, Fp8Scaling scaling = Fp8Scaling::current);

/// The op casting a tensor of `elements` bf16 elements, held as `groups` tensors (a grouped
/// GEMM's operand, one per expert), to `precision` in `copies` copies, named `name`: the amax
/// pass where the format takes one, then the cast. With `swizzled` > 0, also the swizzle of a
/// block-scaled weight of that many elements that the next GEMM reads: Transformer Engine's GEMM
/// swizzles an operand's scales unless its quantizer wrote them swizzled
/// (pytorch/csrc/extensions/gemm.cpp swizzle_scales_for_gemm), which a Linear's input and
/// output-gradient quantizers do since 2.12 (optimize_for_gemm, linear.py) and its weight
/// quantizer does not: the forward and the input-gradient GEMM each read and write the weight's
/// scales again, one more kernel (launched by the GEMM's call, counted here): one for all of a
/// grouped GEMM's expert weights (multi_tensor_swizzle_scales_for_gemm, Transformer Engine
/// v2.8 on, #2019).
/// The op's Op::precision is `precision`, the format it writes. nullopt for a precision that
/// is not quantized.
std::optional<Op> cast_op(const std::string& name, Precision precision, double elements, int copies,
                          double groups = 1, double swizzled = 0);

/// The same for a training GEMM operand: `training.precision` at `training.fp8_scaling`, both
/// copies (one for fp8 where TrainingSpec::fp8_single_copy).
std::optional<Op> cast_op(const std::string& name, const TrainingSpec& training, double elements, double groups = 1,
                          double swizzled = 0);

/// The kernels that quantize one training GEMM operand: its cast and, where the operand is
/// all-gathered before its GEMM in fp8 on a GPU that reads only K-major fp8 operands, the
/// transpose of the gathered tensor (a backward-pass op; see the file's comment).
struct OperandCasts {
  Op cast;
  std::optional<Op> transpose;
};

/// The casts of an operand of `rows` x `cols` elements on this rank, gathered to
/// `gathered_rows` rows before its GEMM (`gathered_rows` == `rows`: not gathered), named
/// `name` (the transpose `name`.transpose); `groups` and `swizzled` as cast_op's. Gathered on
/// Hopper in fp8: the row-wise copy alone, then the transpose of the gathered rows x cols
/// (one byte read and written an element, one kernel); otherwise cast_op's. nullopt for a
/// precision that is not quantized.
std::optional<OperandCasts> operand_casts(const std::string& name, const TrainingSpec& training, double rows,
                                          double gathered_rows, double cols, double groups = 1, double swizzled = 0);

/// A linear layer's backward casts, before its GEMMs: its output gradient's cast, then the
/// transposes of its gathered output gradient and gathered input (`input`'s cast ran forward).
std::vector<Op> backward_casts(const OperandCasts& input, const OperandCasts& output_gradient);

/// Transformer Engine's quantized weights: once per step, after the update, each linear
/// layer's bf16 weights are cast to training.precision, row-wise and column-wise (the cast copy
/// is kept across the step's micro-batches: Megatron-Core passes is_first_microbatch).
/// `parameters`: the cast linear layers' parameters on the GPU. A backward-pass op; nullopt for
/// a precision that is not quantized.
std::optional<Op> weight_quantize_op(double parameters, const TrainingSpec& training);

/// The casts around cuDNN's FP8 attention (training.attention_precision = fp8): Transformer
/// Engine casts Q, K and V before the forward and the output's gradient before the backward,
/// with current scaling (NVTE_DPA_FP8_RECIPE = Float8CurrentScaling in MLPerf's v5.1 configs),
/// one copy that cuDNN reads as it is. `elements`: the tensors' bf16 elements.
Op fp8_attention_cast_op(const std::string& name, double elements);

}  // namespace trainsim
