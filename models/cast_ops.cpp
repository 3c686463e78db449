#include "models/cast_ops.hpp"

#include <optional>
#include <utility>
#include <vector>

namespace trainsim {

namespace {

constexpr double k_bf16_bytes = 2.0;

Op memory_op(std::string name, double bytes, int kernels) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::elementwise;
  op.bytes = bytes;
  op.kernels = kernels;
  return op;
}

}  // namespace

// Per format, as Transformer Engine @ 8f2e6357 runs it (pytorch/csrc/quantizer.cpp):
// - fp8, current scaling (Float8CurrentScalingQuantizer::quantize_impl): the amax kernel reads
//   the tensor (nvte_compute_amax_with_config), a one-thread kernel turns it into the scale
//   (nvte_compute_scale_from_amax), the cast reads it again and writes one byte an element, and
//   on Hopper one more for the transposed copy (single_copy: Blackwell reads one copy).
// - mxfp8 (MXFP8Quantizer::quantize): one kernel, no amax: each 32-element block's E8M0 scale
//   comes from the block itself; it reads the tensor and writes both copies, one byte an element
//   and one scale byte a block each (get_scale_shape: rows x cols/32 and rows/32 x cols).
// - nvfp4 (NVFP4Quantizer::quantize_impl): the second-level fp32 scale is the tensor's amax, so
//   an amax kernel reads the tensor first (nvte_compute_amax_with_config, or
//   nvte_hadamard_transform_amax when the column-wise copy takes a random Hadamard transform);
//   then one kernel writes both copies, half a byte an element and one E4M3 scale a 16-element
//   block each (nvte_quantize_v2, or nvte_quantize_with_hadamard_transform: the transform runs
//   on the tensor cores inside the cast). The default recipe (Hadamard transform, stochastic
//   rounding, 16x16 weight blocks) and MLPerf's vanilla one (NVTE_NVFP4_DISABLE_RHT=1 ...,
//   config_common_fp4.sh) read and write the same bytes in as many kernels.
CastBytes cast_bytes(Precision precision, int copies, Fp8Scaling scaling) {
  CastBytes c;
  switch (precision) {
    case Precision::fp8:
      c.amax = scaling == Fp8Scaling::current ? k_bf16_bytes : 0.0;
      c.amax_kernels = scaling == Fp8Scaling::current ? 2 : 0;
      c.cast = k_bf16_bytes + copies * 1.0;
      c.cast_kernels = 1;
      return c;
    case Precision::mxfp8:
      c.scales = 1.0 / 32;
      c.cast = k_bf16_bytes + copies * (1.0 + c.scales);
      c.cast_kernels = 1;
      return c;
    case Precision::nvfp4:
      c.scales = 1.0 / 16;
      c.amax = k_bf16_bytes;
      c.amax_kernels = 1;
      c.cast = k_bf16_bytes + copies * (0.5 + c.scales);
      c.cast_kernels = 1;
      return c;
    default:
      return c;
  }
}

namespace {

std::optional<Op> cast_of(const std::string& name, Precision precision, const CastBytes& c, double elements,
                          double groups, double swizzled) {
  if (!(c.cast > 0)) return std::nullopt;
  const int tensors = static_cast<int>(groups);
  Op op = memory_op(name, (c.amax + c.cast) * elements, (c.amax_kernels + c.cast_kernels) * tensors);
  op.precision = precision;  // the format it writes (sim/compute/cast_rate.hpp times block-scaled ones)
  // The weights' scale swizzle: one kernel whatever the number of weight tensors. A grouped
  // GEMM swizzles all its experts' weight scales in one multi-tensor launch
  // (TransformerEngine @ v2.14, pytorch/csrc/extensions/gemm.cpp te_general_grouped_gemm calls
  // multi_tensor_swizzle_scales_for_gemm, swizzle.cpp: one
  // nvte_multi_tensor_swizzle_scaling_factors over the list; since v2.8, #2019); a Linear's
  // GEMM swizzles its one weight (swizzle_scales_for_gemm).
  if (swizzled > 0 && c.scales > 0) {
    op.bytes += 2.0 * c.scales * swizzled;
    op.kernels += 1;
  }
  return op;
}

std::optional<Op> training_cast(const std::string& name, const TrainingSpec& training, double elements, int copies,
                                double groups, double swizzled) {
  return cast_of(name, training.precision, cast_bytes(training.precision, copies, training.fp8_scaling), elements,
                 groups, swizzled);
}

}  // namespace

std::optional<Op> cast_op(const std::string& name, Precision precision, double elements, int copies, double groups,
                          double swizzled) {
  return cast_of(name, precision, cast_bytes(precision, copies), elements, groups, swizzled);
}

std::optional<Op> cast_op(const std::string& name, const TrainingSpec& training, double elements, double groups,
                          double swizzled) {
  const bool one_copy = training.precision == Precision::fp8 && training.fp8_single_copy;
  return training_cast(name, training, elements, one_copy ? 1 : 2, groups, swizzled);
}

std::optional<OperandCasts> operand_casts(const std::string& name, const TrainingSpec& training, double rows,
                                          double gathered_rows, double cols, double groups, double swizzled) {
  const bool transposed_after_gather =
      training.precision == Precision::fp8 && !training.fp8_single_copy && gathered_rows > rows;
  if (!transposed_after_gather) {
    std::optional<Op> cast = cast_op(name, training, rows * cols, groups, swizzled);
    if (!cast) return std::nullopt;
    return OperandCasts{std::move(*cast), std::nullopt};
  }
  OperandCasts casts{*training_cast(name, training, rows * cols, 1, groups, swizzled), std::nullopt};
  constexpr double k_fp8_bytes = 1.0;
  Op transpose = memory_op(name + ".transpose", 2.0 * k_fp8_bytes * gathered_rows * cols, static_cast<int>(groups));
  transpose.pass = OpPass::backward;
  casts.transpose = std::move(transpose);
  return casts;
}

std::vector<Op> backward_casts(const OperandCasts& input, const OperandCasts& output_gradient) {
  std::vector<Op> ops{output_gradient.cast};
  for (const std::optional<Op>& t : {output_gradient.transpose, input.transpose})
    if (t) ops.push_back(*t);
  return ops;
}

std::optional<Op> weight_quantize_op(double parameters, const TrainingSpec& training) {
  std::optional<Op> op = cast_op("weights.quantize", training, parameters);
  if (op) op->pass = OpPass::backward;
  return op;
}

Op fp8_attention_cast_op(const std::string& name, double elements) {
  return *cast_op(name, Precision::fp8, elements, 1);
}

}  // namespace trainsim
