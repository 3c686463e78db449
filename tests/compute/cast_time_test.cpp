// The casts a quantized GEMM's operands take (models/cast_ops.hpp), timed as the memory-bound
// kernels they are: their bytes over the GPU's HBM bandwidth as the roofline states it
// (RooflineParameters: 0.85 of the datasheet's, 3 us a kernel), and the casts of one
// transformer layer against Transformer Engine's B300 measurement.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "models/cast_ops.hpp"
#include "sim/compute/calibrated_compute_model.hpp"
#include "sim/compute/compute_model_factory.hpp"
#include "sim/compute/roofline_compute_model.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {
namespace {

constexpr double k_elements = 8192.0 * 8192.0;  // one 8192 x 8192 bf16 tensor
constexpr double k_kernel_s = 3e-6;             // the roofline's time per kernel

// Time of `bytes_per_element` over the GPU's stated bandwidth (at `fraction` of it: the
// streaming 0.85, or a block-scaled cast's measured fraction, sim/compute/cast_rate.hpp), plus
// the roofline's kernel time (one op: the launch gaps of its further kernels are
// LaunchGapComputeModel's).
double stated_s(const GpuSpec& gpu, double bytes_per_element, double fraction = 0.85) {
  return k_kernel_s + bytes_per_element * k_elements / (fraction * gpu.hbm_bandwidth_Bps);
}

TrainingSpec training(Precision precision, bool single_copy = false) {
  TrainingSpec tr;
  tr.precision = precision;
  tr.fp8_single_copy = single_copy;
  return tr;
}

// fp8 with current scaling on Hopper: an amax pass reads the tensor (2 bytes an element; amax
// and scale kernels), the cast reads it again and writes the row-wise and the transposed fp8
// copy: 2 + 4 bytes in three kernels.
TEST(CastTime, Fp8CurrentScalingOnHopperIsSixBytesAnElement) {
  const GpuSpec gpu = *gpu_preset("h100-sxm");
  const RooflineComputeModel model(datasheet_roofline(gpu, Precision::fp8));
  const Op op = *cast_op("x", training(Precision::fp8), k_elements);
  EXPECT_DOUBLE_EQ(op.bytes, 6.0 * k_elements);
  EXPECT_EQ(op.kernels, 3);
  EXPECT_NEAR(model.op_time_s(op), stated_s(gpu, 6.0), 1e-12);
}

// On Blackwell one fp8 copy serves every GEMM: 2 + 3 bytes.
TEST(CastTime, Fp8OnBlackwellWritesOneCopy) {
  const GpuSpec gpu = *gpu_preset("b200");
  const RooflineComputeModel model(datasheet_roofline(gpu, Precision::fp8));
  EXPECT_NEAR(model.op_time_s(*cast_op("x", training(Precision::fp8, true), k_elements)), stated_s(gpu, 5.0), 1e-12);
}

// Delayed scaling takes its scale from the amax history: the cast alone, 2 + 2 bytes on
// Hopper in one kernel (Transformer Engine's Float8Quantizer::quantize: one nvte_quantize_v2).
TEST(CastTime, Fp8DelayedScalingHasNoAmaxPass) {
  TrainingSpec tr = training(Precision::fp8);
  tr.fp8_scaling = Fp8Scaling::delayed;
  const Op op = *cast_op("x", tr, k_elements);
  EXPECT_DOUBLE_EQ(op.bytes, 4.0 * k_elements);
  EXPECT_EQ(op.kernels, 1);
  EXPECT_DOUBLE_EQ(weight_quantize_op(k_elements, tr)->bytes, 4.0 * k_elements);
}

// An operand all-gathered over the TP group in fp8 on Hopper: cast row-wise on this rank's
// shard (2 + 2 + 1 bytes), then in the backward its gathered copy transposed (one byte read,
// one written, an element of all tp shards; one kernel). Not gathered, or on Blackwell (one
// copy serves every GEMM), or in MXFP8 (its column-wise copy is gathered too): the cast alone.
TEST(CastTime, Fp8OperandGatheredOnHopperIsTransposedAfterTheGather) {
  const double rows = 1024, tp = 8, cols = 16384;
  const auto gathered = *operand_casts("x", training(Precision::fp8), rows, tp * rows, cols);
  EXPECT_DOUBLE_EQ(gathered.cast.bytes, 5.0 * rows * cols);
  EXPECT_EQ(gathered.cast.kernels, 3);
  ASSERT_TRUE(gathered.transpose.has_value());
  EXPECT_EQ(gathered.transpose->name, "x.transpose");
  EXPECT_EQ(gathered.transpose->pass, OpPass::backward);
  EXPECT_DOUBLE_EQ(gathered.transpose->bytes, 2.0 * tp * rows * cols);
  EXPECT_EQ(gathered.transpose->kernels, 1);
  const auto local = *operand_casts("x", training(Precision::fp8), rows, rows, cols);
  EXPECT_DOUBLE_EQ(local.cast.bytes, 6.0 * rows * cols);
  EXPECT_FALSE(local.transpose.has_value());
  EXPECT_FALSE(operand_casts("x", training(Precision::fp8, true), rows, tp * rows, cols)->transpose.has_value());
  EXPECT_FALSE(operand_casts("x", training(Precision::mxfp8), rows, tp * rows, cols)->transpose.has_value());
  EXPECT_FALSE(operand_casts("x", training(Precision::bf16), rows, tp * rows, cols).has_value());
  // The backward casts: the output gradient's cast, then the transposes.
  const std::vector<Op> backward = backward_casts(gathered, local);
  ASSERT_EQ(backward.size(), 2u);
  EXPECT_DOUBLE_EQ(backward[0].bytes, local.cast.bytes);
  EXPECT_DOUBLE_EQ(backward[1].bytes, gathered.transpose->bytes);
}

// MXFP8: one kernel, no amax, both copies with one E8M0 scale per 32 elements each:
// 2 + 2 x (1 + 1/32) bytes; a weight's scales swizzled for the next GEMM add their reading
// and writing (1/32 each) and a kernel.
TEST(CastTime, Mxfp8IsOneKernelOfBothCopiesAndTheirScales) {
  const GpuSpec gpu = *gpu_preset("b200");
  const RooflineComputeModel model(datasheet_roofline(gpu, Precision::mxfp8));
  const Op op = *cast_op("x", training(Precision::mxfp8), k_elements);
  EXPECT_EQ(op.kernels, 1);
  EXPECT_NEAR(model.op_time_s(op), stated_s(gpu, 2.0 + 2.0 * (1.0 + 1.0 / 32), 0.65), 1e-12);
  const Op swizzled = *cast_op("x", training(Precision::mxfp8), k_elements, 1, k_elements);
  EXPECT_EQ(swizzled.kernels, 2);
  EXPECT_DOUBLE_EQ(swizzled.bytes - op.bytes, 2.0 * k_elements / 32);
  // fp8's one per-tensor scale needs no swizzle.
  EXPECT_DOUBLE_EQ(cast_op("x", training(Precision::fp8), k_elements, 1, k_elements)->bytes, 6.0 * k_elements);
}

// A grouped GEMM's operand is cast split by split (one cast kernel an expert, and for NVFP4 an
// amax kernel each as well), and the GEMM swizzles all its experts' weight scales in one
// multi-tensor kernel (Transformer Engine v2.14 multi_tensor_swizzle_scales_for_gemm): 16
// experts take 16 + 1 kernels under MXFP8 and 2 x 16 + 1 under NVFP4, the bytes of one tensor
// of all their elements.
TEST(CastTime, GroupedCastSwizzlesAllExpertWeightsInOneKernel) {
  constexpr double k_experts = 16;
  const Op one = *cast_op("x", training(Precision::mxfp8), k_elements, 1, k_elements);
  const Op grouped = *cast_op("x", training(Precision::mxfp8), k_elements, k_experts, k_elements);
  EXPECT_EQ(grouped.kernels, 16 + 1);
  EXPECT_DOUBLE_EQ(grouped.bytes, one.bytes);
  EXPECT_EQ(cast_op("x", training(Precision::nvfp4), k_elements, k_experts, k_elements)->kernels, 2 * 16 + 1);
  // Without a weight to swizzle (an output gradient's cast alone): one kernel an expert.
  EXPECT_EQ(cast_op("x", training(Precision::mxfp8), k_elements, k_experts)->kernels, 16);
}

// NVFP4: an amax pass (the second-level scale), then both copies at half a byte an element and
// one E4M3 scale per 16: 2 + 2 + 2 x (0.5 + 1/16) bytes in two kernels.
TEST(CastTime, Nvfp4IsAnAmaxPassAndOneKernelOfBothCopies) {
  const GpuSpec gpu = *gpu_preset("gb200");
  const RooflineComputeModel model(datasheet_roofline(gpu, Precision::nvfp4));
  const Op op = *cast_op("x", training(Precision::nvfp4), k_elements);
  EXPECT_EQ(op.kernels, 2);
  EXPECT_NEAR(model.op_time_s(op), stated_s(gpu, 2.0 + 2.0 + 2.0 * (0.5 + 1.0 / 16), 0.60), 1e-12);
  // A grouped operand is cast tensor by tensor: the kernels of each per group.
  EXPECT_EQ(cast_op("x", training(Precision::nvfp4), k_elements, 8)->kernels, 16);
  EXPECT_FALSE(cast_op("x", training(Precision::bf16), k_elements).has_value());
}

// Transformer Engine's B300 layer (TransformerEngine @ 8f2e6357
// docs/examples/gemm_profiling/gemm_profiling.rst, benchmarks/gemm/benchmark_gemm.py): hidden
// 4096, FFN 16384, M = 15,872 tokens, the 12 GEMMs of a layer each timed as te.Linear(K, N)(x)
// under autocast and with pre-quantized inputs; the difference is the casts: the input x (M x K)
// cast both ways (the weight needs its gradient), the weight (K x N) row-wise only (x needs
// none), every call (is_first_microbatch unset). MXFP8 8.984 - 7.161 = 1.823 ms a layer, NVFP4
// 6.453 - 3.764 = 2.689 ms. The model times the block-scaled casts at the bandwidth fractions
// sim/compute/cast_rate.hpp derives from these two figures (its bytes, and the launch gap per
// kernel as here), so it meets them: +0.8 % and +0.1 %, held to 2 %. (At the streaming 85 % it
// came out -18 % and -26 %; at 0.68 and 0.615, derived with a 3 us per-op floor the bandwidth
// term never pays, -3.3 % and -2.2 %.)
TEST(CastTime, B300LayerCastsWithinTwoPercentOfTransformerEngines) {
  const std::string table = calibration_table_path(std::string(TRAINSIM_SOURCE_DIR) + "/kernels/calibration", "b300");
  if (!std::filesystem::exists(table)) GTEST_SKIP() << "no B300 calibration table";
  const GpuSpec gpu = *gpu_preset("b300");
  const double h = 4096, f = 16384, m = 15872;
  // (M, K, N) of te.Linear(K, N) on an M x K input: forward, input-gradient and weight-gradient shapes.
  const std::vector<std::vector<double>> calls = {
      {m, h, 3 * h}, {m, h, h}, {m, h, f}, {m, f, h},  // forward
      {m, 3 * h, h}, {m, h, h}, {m, f, h}, {m, h, f},  // input gradient
      {h, m, 3 * h}, {h, m, h}, {h, m, f}, {f, m, h},  // weight gradient
  };
  for (const auto& [precision, measured_s] :
       std::vector<std::pair<Precision, double>>{{Precision::mxfp8, 1.823e-3}, {Precision::nvfp4, 2.689e-3}}) {
    const CalibratedComputeModel model(read_calibration_table(table), precision, datasheet_roofline(gpu, precision));
    // Each op's further kernels pay the 2 us launch gap (training.kernel_gap's default).
    const auto seconds = [&model](const Op& op) { return model.op_time_s(op) + op.kernels * 2e-6; };
    double casts_s = 0;
    for (const auto& c : calls)
      casts_s += seconds(*cast_op("x", precision, c[0] * c[1], 2)) + seconds(*cast_op("w", precision, c[1] * c[2], 1, 1, c[1] * c[2]));
    EXPECT_NEAR(casts_s / measured_s, 1.0, 0.02) << static_cast<int>(precision) << ": " << casts_s * 1e3 << " ms";
  }
}

}  // namespace
}  // namespace trainsim
