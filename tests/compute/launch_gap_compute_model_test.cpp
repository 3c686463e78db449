// The launch gap between kernels (training.kernel_gap) on top of the kernels' own times.

#include <gtest/gtest.h>

#include <memory>

#include "sim/compute/launch_gap_compute_model.hpp"
#include "sim/compute/roofline_compute_model.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {
namespace {

TEST(LaunchGapComputeModel, AddsTheGapOncePerKernel) {
  const GpuSpec gpu = *gpu_preset("h100-sxm");
  const RooflineComputeModel kernels(datasheet_roofline(gpu, Precision::bf16));
  const LaunchGapComputeModel gapped(std::make_unique<RooflineComputeModel>(datasheet_roofline(gpu, Precision::bf16)),
                                     2e-6);
  Op op;
  op.kind = OpKind::elementwise;
  op.bytes = 1e8;
  EXPECT_DOUBLE_EQ(gapped.op_time_s(op), kernels.op_time_s(op) + 2e-6);
  op.kernels = 2;  // an fp8 quantization: amax, then cast
  EXPECT_DOUBLE_EQ(gapped.op_time_s(op), kernels.op_time_s(op) + 4e-6);
  EXPECT_NE(gapped.description().find("2 us launch gap"), std::string::npos) << gapped.description();
}

TEST(LaunchGapComputeModel, SplitGemmsPayOneGapPerChunk) {
  const GpuSpec gpu = *gpu_preset("h100-sxm");
  const LaunchGapComputeModel gapped(std::make_unique<RooflineComputeModel>(datasheet_roofline(gpu, Precision::bf16)),
                                     2e-6);
  Op gemm;
  gemm.kind = OpKind::gemm;
  gemm.gemm = {8192, 8192, 8192, 1};
  gemm.flops = 2.0 * 8192 * 8192 * 8192;
  gemm.bytes = 3.0 * 8192 * 8192 * 2;
  Op split = gemm;
  split.splits = split.kernels = 4;
  // Four chunks of a quarter of the rows: four kernels' overheads and gaps where one had one.
  EXPECT_NEAR(gapped.time_s(split) - gapped.time_s(gemm), 3 * (2e-6 + 3e-6), 1e-9);
}

}  // namespace
}  // namespace trainsim
