// Casts into block-scaled formats timed at their kernels' measured bandwidth
// (sim/compute/cast_rate.hpp): MXFP8 at 0.65 and NVFP4 at 0.60 of the datasheet's HBM bandwidth
// (Transformer Engine's B300 layer, gemm_profiling.rst @ 8f2e6357), every other op as before.
#include <gtest/gtest.h>

#include "models/cast_ops.hpp"
#include "sim/compute/cast_rate.hpp"
#include "sim/compute/compute_model_factory.hpp"
#include "sim/compute/roofline_compute_model.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {
namespace {

constexpr double k_elements = 131072.0 * 2048.0;  // Qwen3 30B-A3B's expert input at EP 8, MBS 4

TEST(CastRate, BlockScaledCastsAtTheirMeasuredFraction) {
  EXPECT_DOUBLE_EQ(cast_bandwidth_fraction(*cast_op("x", Precision::mxfp8, k_elements, 2)), 0.65);
  EXPECT_DOUBLE_EQ(cast_bandwidth_fraction(*cast_op("x", Precision::nvfp4, k_elements, 2)), 0.60);
  // fp8 with a per-tensor scale (amax pass, cast) and every non-cast op: no measured rate here.
  EXPECT_DOUBLE_EQ(cast_bandwidth_fraction(*cast_op("x", Precision::fp8, k_elements, 2)), 0.0);
  Op norm;
  norm.kind = OpKind::norm;
  norm.precision = Precision::mxfp8;
  EXPECT_DOUBLE_EQ(cast_bandwidth_fraction(norm), 0.0);
  Op gemm;
  gemm.kind = OpKind::gemm;
  gemm.precision = Precision::mxfp8;
  EXPECT_DOUBLE_EQ(cast_bandwidth_fraction(gemm), 0.0);
}

TEST(CastRate, TheLongerOfTheStreamingTimeAndTheMeasuredRate) {
  const Op cast = *cast_op("x", Precision::mxfp8, k_elements, 2);
  const double hbm = 8e12;
  const double measured = cast.bytes / (0.65 * hbm);
  EXPECT_DOUBLE_EQ(cast_time_s(cast, 0.5 * measured, hbm), measured);
  EXPECT_DOUBLE_EQ(cast_time_s(cast, 2 * measured, hbm), 2 * measured);
  EXPECT_DOUBLE_EQ(cast_time_s(*cast_op("x", Precision::fp8, k_elements, 2), 1e-6, hbm), 1e-6);
}

// The roofline times a B200's MXFP8 cast at 0.65 of its 8 TB/s, not the streaming 0.85, plus
// its fixed cost per kernel.
TEST(CastRate, TheRooflineTimesCastsAtTheMeasuredRate) {
  const GpuSpec gpu = *gpu_preset("b200");
  const RooflineComputeModel model(datasheet_roofline(gpu, Precision::mxfp8));
  const Op cast = *cast_op("x", Precision::mxfp8, k_elements, 2);
  EXPECT_NEAR(model.op_time_s(cast), 3e-6 + cast.bytes / (0.65 * gpu.hbm_bandwidth_Bps), 1e-12);
}

}  // namespace
}  // namespace trainsim
