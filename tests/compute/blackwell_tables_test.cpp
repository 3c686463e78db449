// The shipped Blackwell tables (kernels/calibration/{b200,gb200,b300,gb300}.csv, written by
// convert_public.py) through the compute model: the measured low-precision GEMMs and FP8
// attention they carry, and Blackwell Ultra's GEMMs from its own measurements.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/compute/calibrated_compute_model.hpp"
#include "models/training_spec.hpp"
#include "sim/compute/compute_model_factory.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {
namespace {

const std::string k_tables = std::string(TRAINSIM_SOURCE_DIR) + "/kernels/calibration";

// A GEMM as the workload counts it (models/layer_workload.cpp): quantized operands with their
// block scales, a bf16 output; `batch` groups of m rows.
Op gemm_op(double m, double n, double k, Precision precision, double batch = 1) {
  Op op;
  op.kind = OpKind::gemm;
  op.precision = precision;
  op.gemm = {m, n, k, batch};
  op.flops = op.model_flops = 2 * m * n * k * batch;
  const double in = is_quantized(precision) ? quantized_element_bytes(precision) : 2;
  op.bytes = ((m * k + k * n) * in + 2 * m * n) * batch;
  return op;
}

// Causal fused attention of one sequence as the workload counts it (models/layer_workload.cpp):
// forward FLOPs 4 b s^2 h d / 2, bytes Q, O over the query heads and K, V over the KV heads.
Op attention_op(double seq, double heads, double kv_heads, double head_dim, OpPass pass) {
  Op op;
  op.kind = OpKind::attention;
  op.pass = pass;
  op.flops = op.model_flops = 4 * seq * seq * heads * head_dim / 2 * (pass == OpPass::backward ? 2.5 : 1);
  op.bytes = (seq * heads * 2 * head_dim + seq * kv_heads * 2 * head_dim) * 2 * (pass == OpPass::backward ? 2 : 1);
  return op;
}

std::unique_ptr<ComputeModel> model(const char* gpu, Precision precision) {
  return make_compute_model(*gpu_preset(gpu), precision, calibration_choice("auto", k_tables));
}

TEST(BlackwellTables, AutoPicksEachBlackwellGpusTable) {
  for (const char* name : {"b200", "gb200", "b300", "gb300"}) {
    const auto m = model(name, Precision::fp8);
    EXPECT_NE(m->description().find(std::string(name) + ".csv"), std::string::npos) << m->description();
  }
}

TEST(BlackwellTables, Nvfp4GemmOnB200TakesTheMeasuredTime) {
  // pytorch/ao#2427 on B200: NVFP4 8192^3 in 205 us (5.37 PFLOP/s), BF16 in 774 us; 6144^3
  // NVFP4 84.4 us. The table carries them as measured:ao-nvfp4 rows; the curve is exact there.
  const auto nvfp4 = model("b200", Precision::nvfp4);
  EXPECT_NEAR(nvfp4->op_time_s(gemm_op(8192, 8192, 8192, Precision::nvfp4)), 205e-6, 0.5e-6);
  EXPECT_NEAR(nvfp4->op_time_s(gemm_op(6144, 6144, 6144, Precision::nvfp4)), 84.4e-6, 0.5e-6);
  // At 1024^3 the measured NVFP4 GEMM is slower than BF16 (5.87 against 5.08 us): no datasheet
  // ratio makes a small GEMM faster.
  EXPECT_NEAR(nvfp4->op_time_s(gemm_op(1024, 1024, 1024, Precision::nvfp4)), 5.87e-6, 0.05e-6);
  // Shapes no one timed in NVFP4: the table's bf16 row x the measured NVFP4/BF16 ratio at the
  // GEMM's size (rule b200-lowprec-ratio): 0.265 at 8192^3 and beyond, so a Llama 3.1 405B
  // down-projection at TP 4 (4096 tokens, 53248/4 in, 16384 out; SimuMax timed it in bf16) takes
  // 0.265 x its bf16 time, not the datasheet's 1/4.
  const auto bf16 = model("b200", Precision::bf16);
  const double down_bf16 = bf16->op_time_s(gemm_op(4096, 16384, 13312, Precision::bf16));
  const double down_nvfp4 = nvfp4->op_time_s(gemm_op(4096, 16384, 13312, Precision::nvfp4));
  EXPECT_NEAR(down_nvfp4 / down_bf16, 0.2649, 0.01);
}

TEST(BlackwellTables, Mxfp8GemmOnB200TakesTheMeasuredTime) {
  // flashinfer#2464 on B200: MXFP8 8192 x 8192 x 4096 at 3200.870 TFLOP/s (0.172 ms), no
  // longer the fp8 rows' time.
  const auto mxfp8 = model("b200", Precision::mxfp8);
  const double flops = 2.0 * 8192 * 8192 * 4096;
  EXPECT_NEAR(mxfp8->op_time_s(gemm_op(8192, 8192, 4096, Precision::mxfp8)), flops / 3200.870e12, 1e-9);
}

TEST(BlackwellTables, Gb300GemmsAreBlackwellUltrasOwn) {
  // At Transformer Engine's B300 shapes (15872 tokens, hidden 4096, FFN 16384) GB300's BF16
  // GEMM is the measured B300 time on the Grace board (x 1745/1822): QKV 1.071 ms on B300.
  const auto gb300 = model("gb300", Precision::bf16);
  const auto gb200 = model("gb200", Precision::bf16);
  const Op qkv = gemm_op(15872, 12288, 4096, Precision::bf16);
  EXPECT_NEAR(gb300->op_time_s(qkv), 1.071e-3 * 1745.0 / 1822.0, 1e-9);
  // Elsewhere GB300's GEMMs are B200's x B300's measured ratio over B200 (TE's four forward
  // GEMMs over pytorch/ao#2427's B200 BF16 rate at the same size: 0.940), GB200's B200's: GB300
  // is faster by that ratio, no longer equal to GB200 (the former rule).
  for (const Op& op : {gemm_op(2048, 8192, 512, Precision::bf16), gemm_op(4096, 14336, 4096, Precision::bf16)}) {
    EXPECT_NEAR(gb300->op_time_s(op) / gb200->op_time_s(op), 0.940, 0.001) << op.gemm.m << "x" << op.gemm.n;
  }
  // And at TE's shapes faster still than that ratio: the measured B300 runs above B200's
  // sustained (SimuMax) rate that GB200's rows carry there.
  EXPECT_LT(gb300->op_time_s(qkv), 0.940 * gb200->op_time_s(qkv));
}

TEST(BlackwellTables, QuantizedTrainingKeepsAttentionInSixteenBits) {
  // The tables' fp8 attention rows (cuDNN FP8 SDPA, cudnn-frontend artifacts) are for FP8
  // attention (training.attention_precision); fp8, mxfp8 and nvfp4 training quantize the Linear
  // layers only, so attention times the same as under bf16.
  const Op fwd = attention_op(16384, 128, 8, 128, OpPass::forward);
  const Op bwd = attention_op(16384, 128, 8, 128, OpPass::backward);
  for (const char* gpu : {"b200", "gb200", "gb300"}) {
    const auto bf16 = model(gpu, Precision::bf16);
    for (Precision p : {Precision::fp8, Precision::mxfp8, Precision::nvfp4}) {
      const auto quantized = model(gpu, p);
      EXPECT_EQ(quantized->op_time_s(fwd), bf16->op_time_s(fwd)) << gpu;
      EXPECT_EQ(quantized->op_time_s(bwd), bf16->op_time_s(bwd)) << gpu;
    }
  }
}

}  // namespace
}  // namespace trainsim
