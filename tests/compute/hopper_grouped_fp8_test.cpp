// Hopper fp8 grouped expert GEMMs at DeepGEMM's measured fp8 gain (rule deepgemm-fp8-gain,
// kernels/calibration/converter/hopper_fp8.py), dense fp8 GEMMs still at the MAMF ratio.
#include <gtest/gtest.h>

#include <string>

#include "sim/compute/calibrated_compute_model.hpp"
#include "sim/compute/compute_model_factory.hpp"

namespace trainsim {
namespace {

const std::string k_tables = std::string(TRAINSIM_SOURCE_DIR) + "/kernels/calibration";

CalibratedComputeModel hopper_model(const std::string& gpu, Precision precision) {
  const GpuSpec spec = *gpu_preset(gpu);
  return CalibratedComputeModel(read_calibration_table(calibration_table_path(k_tables, gpu)), precision,
                                datasheet_roofline(spec, precision));
}

// An expert GEMM (batch = local experts, m = rows per expert) or a dense one (batch 1) in `p`.
Op gemm_op(double m, double n, double k, double batch, Precision p) {
  Op op;
  op.kind = OpKind::gemm;
  op.precision = p;
  op.gemm = {m, n, k, batch};
  op.flops = op.model_flops = 2 * m * n * k * batch;
  const double in = p == Precision::fp8 ? 1 : 2;
  op.bytes = (in * (m * k + k * n) + 2 * m * n) * batch;
  return op;
}

double tflops(const CalibratedComputeModel& model, const Op& op) { return op.flops / model.op_time_s(op) / 1e12; }

// DeepGEMM's FP8 grouped GEMMs on H800 (the H100's compute die), deepseek-ai/DeepGEMM README.md
// @ 55ab91f7: contiguous layout, 8 groups of 4,096 rows, n 7,168, k 2,048: 1,214 TFLOP/s; masked
// layout, 4 groups of 256 rows, n 4,096, k 7,168: 932. The MAMF ratio on the bf16 batched rows
// priced them at about 1,340 and 1,170 TFLOP/s, above the best measured kernel.
TEST(HopperGroupedFp8, ExpertGemmsRunAtDeepGemmsMeasuredRate) {
  const CalibratedComputeModel h100 = hopper_model("h100-sxm", Precision::fp8);
  const Op contiguous = gemm_op(4096, 7168, 2048, 8, Precision::fp8);
  EXPECT_TRUE(h100.covers(contiguous));
  EXPECT_LT(tflops(h100, contiguous), 1214 * 1.03);
  EXPECT_GT(tflops(h100, contiguous), 1214 * 0.85);
  const Op masked = gemm_op(256, 4096, 7168, 4, Precision::fp8);
  EXPECT_LT(tflops(h100, masked), 932 * 1.03);
  EXPECT_GT(tflops(h100, masked), 932 * 0.85);
}

// Qwen3 30B-A3B's experts at EP 8 (16 groups of 4,096 rows at micro-batch 2): the shallow
// down-projection (k 768) gains less from fp8 than the up-projection (k 2,048), and both less
// than the MAMF ratio (794.5 / 1402.6) that dense fp8 GEMMs keep.
TEST(HopperGroupedFp8, FineGrainedExpertsGainLessFromFp8ThanDenseGemms) {
  for (const std::string gpu : {"h100-sxm", "h200"}) {
    const CalibratedComputeModel bf16 = hopper_model(gpu, Precision::bf16);
    const CalibratedComputeModel fp8 = hopper_model(gpu, Precision::fp8);
    const auto ratio = [&](double m, double n, double k, double batch) {
      return fp8.op_time_s(gemm_op(m, n, k, batch, Precision::fp8)) /
             bf16.op_time_s(gemm_op(m, n, k, batch, Precision::bf16));
    };
    const double mamf = 794.5 / (gpu == "h200" ? 1453.4 : 1402.6);
    const double up = ratio(4096, 1536, 2048, 16);
    const double down = ratio(4096, 2048, 768, 16);
    EXPECT_GT(up, mamf + 0.03) << gpu;
    EXPECT_GT(down, up + 0.02) << gpu;
    EXPECT_LT(down, 0.8) << gpu;
    EXPECT_NEAR(ratio(4096, 4096, 4096, 1), mamf, 0.01) << gpu;  // dense: unchanged
  }
}

}  // namespace
}  // namespace trainsim
