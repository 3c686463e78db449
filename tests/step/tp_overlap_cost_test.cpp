// The GEMM beside an overlapped TP collective (sim/step/tp_overlap_cost.hpp): waves of its
// output tiles on the SMs the userbuffers kernels leave, and the HBM a copy-engine exchange
// shares; and the per-GEMM settings (models/tp_overlap.hpp).

#include <gtest/gtest.h>

#include <string>

#include "models/tp_overlap.hpp"
#include "sim/step/tp_overlap_cost.hpp"

namespace trainsim {
namespace {

GemmShape shape(double m, double n, double k) { return {m, n, k, 1}; }

TEST(TpOverlapCost, TilesAreTheOutputIn128By256Blocks) {
  // GPT-3 175B at TP 4: the input gradient of QKV, 2048 tokens x hidden 12288.
  EXPECT_DOUBLE_EQ(gemm_tiles(shape(2048, 12288, 9216)), 16.0 * 48.0);
  EXPECT_DOUBLE_EQ(gemm_tiles(shape(100, 300, 64)), 1.0 * 2.0);  // partial tiles count whole
  EXPECT_DOUBLE_EQ(gemm_tiles({256, 256, 64, 3}), 2.0 * 3.0);      // batched products
}

TEST(TpOverlapCost, WavesAreTilesOverSmsRoundedUp) {
  EXPECT_DOUBLE_EQ(gemm_waves(768, 132), 6);
  EXPECT_DOUBLE_EQ(gemm_waves(768, 124), 7);
  EXPECT_DOUBLE_EQ(gemm_waves(768, 128), 6);
  EXPECT_DOUBLE_EQ(gemm_waves(1, 132), 1);
}

TEST(TpOverlapCost, TakenSmsCostWhatTheyAddInWaves) {
  const GemmShape dgrad = shape(2048, 12288, 9216);  // 768 tiles
  // MLPerf's qkv_wgrad bulk overlap on 8 of the H100's 132 SMs: 6 waves become 7.
  EXPECT_DOUBLE_EQ(sm_share_slowdown(dgrad, 132, 8), 7.0 / 6.0);
  // fc1_wgrad's 4: 128 SMs still take 768 tiles in 6 waves.
  EXPECT_DOUBLE_EQ(sm_share_slowdown(dgrad, 132, 4), 1.0);
  // A pipelined chunk of the output projection, 512 x 12288 (192 tiles), beside 24 SMs:
  // two waves on 132 SMs or on 108, so the SMs taken cost nothing.
  EXPECT_DOUBLE_EQ(sm_share_slowdown(shape(512, 12288, 3072), 132, 24), 1.0);
  // One wave of 128 tiles on 132 SMs; two on 108.
  EXPECT_DOUBLE_EQ(sm_share_slowdown(shape(1024, 4096, 512), 132, 24), 2.0);
  // Nothing taken, or no SM count known for the GPU: no slowdown.
  EXPECT_DOUBLE_EQ(sm_share_slowdown(dgrad, 132, 0), 1.0);
  EXPECT_DOUBLE_EQ(sm_share_slowdown(dgrad, 0, 8), 1.0);
}

Op gemm_op(GemmShape g, double bytes, int splits) {
  Op op;
  op.name = "test";
  op.kind = OpKind::gemm;
  op.gemm = g;
  op.flops = 2 * g.m * g.n * g.k;
  op.bytes = bytes;
  op.splits = splits;
  return op;
}

TEST(TpOverlapCost, EachChunkRunsOnTheSmsLeft) {
  GpuSpec h100;
  h100.sms = 132;
  h100.hbm_bandwidth_Bps = 3.35e12;
  // 4 chunks of 1024 x 4096 (128 tiles each): one wave alone, two beside 24 SMs.
  const Op op = gemm_op(shape(4096, 4096, 512), 1e6, 4);
  EXPECT_DOUBLE_EQ(overlapped_gemm_s(op, 1e-3, {TpOverlapMethod::pipeline, 24, 4}, h100, 1e6, 4), 2e-3);
  // A copy-engine ring exchange takes no SM: the compute-bound GEMM keeps its time.
  EXPECT_DOUBLE_EQ(overlapped_gemm_s(op, 1e-3, {TpOverlapMethod::ring_exchange, 0, 0}, h100, 1e6, 4), 1e-3);
}

TEST(TpOverlapCost, AMemoryBoundGemmWaitsForTheExchangesBytes) {
  GpuSpec g;
  g.sms = 132;
  g.hbm_bandwidth_Bps = 1e12;
  // 1 GB of its own at 1 TB/s: 1 ms, as the table says; beside a ring exchange of 1 GB over
  // 4 ranks this GPU also reads 0.75 GB and receives 0.75 GB.
  const Op op = gemm_op(shape(128, 256, 64), 1e9, 4);
  EXPECT_NEAR(overlapped_gemm_s(op, 1e-3, {TpOverlapMethod::ring_exchange, 0, 0}, g, 1e9, 4), 2.5e-3, 1e-12);
}

TEST(TpOverlapSettings, DefaultsFollowMegatronBridgesConfigsPerFamily) {
  const TpOverlapSettings none;
  using G = TpOverlapGemm;
  using M = TpOverlapMethod;
  // FP8: the forward reduce-scatters run as ring exchanges with one SM of margin.
  EXPECT_EQ(tp_overlap_setting(none, G::proj_fprop, Precision::fp8, "h100-sxm"), (TpOverlapSetting{M::ring_exchange, 1, 0}));
  // BF16: pipelined, on 24 SMs on Hopper and 32 on Blackwell.
  EXPECT_EQ(tp_overlap_setting(none, G::proj_fprop, Precision::bf16, "h100-sxm"), (TpOverlapSetting{M::pipeline, 24, 4}));
  EXPECT_EQ(tp_overlap_setting(none, G::proj_fprop, Precision::bf16, "b200"), (TpOverlapSetting{M::pipeline, 32, 4}));
  EXPECT_EQ(tp_overlap_setting(none, G::qkv_wgrad, Precision::fp8, "h100-sxm"), (TpOverlapSetting{M::bulk, 24, 1}));
  EXPECT_EQ(tp_overlap_setting(none, G::qkv_fprop, Precision::fp8, "b200"), (TpOverlapSetting{M::ring_exchange, 0, 0}));
  // The scenario's own, and tp_comm_overlap_sms over every SM-kernel collective.
  TpOverlapSettings set;
  set.gemm[static_cast<size_t>(G::fc2_fprop)] = TpOverlapSetting{M::pipeline, 4, 4};
  set.sms = 12;
  EXPECT_EQ(tp_overlap_setting(set, G::fc2_fprop, Precision::fp8, "h100-sxm").sms, 12);
  EXPECT_EQ(tp_overlap_setting(set, G::qkv_fprop, Precision::fp8, "h100-sxm").sms, 0);
}

TEST(TpOverlapSettings, ChunksFollowTheMethod) {
  EXPECT_EQ(tp_overlap_splits({TpOverlapMethod::ring_exchange, 0, 0}, 8), 8);
  EXPECT_EQ(tp_overlap_splits({TpOverlapMethod::pipeline, 24, 4}, 8), 4);
  EXPECT_EQ(tp_overlap_splits({TpOverlapMethod::bulk, 8, 1}, 8), 1);
}

TEST(TpOverlapSettings, ParsesWhatTransformerEngineAccepts) {
  std::string rule;
  const auto pipeline = parse_tp_overlap_setting("pipeline:24:4", TpOverlapGemm::proj_fprop, &rule);
  ASSERT_TRUE(pipeline) << rule;
  EXPECT_EQ(*pipeline, (TpOverlapSetting{TpOverlapMethod::pipeline, 24, 4}));
  EXPECT_EQ(tp_overlap_setting_text(*pipeline), "pipeline:24:4");
  EXPECT_EQ(*parse_tp_overlap_setting("bulk:8", TpOverlapGemm::qkv_wgrad, &rule),
            (TpOverlapSetting{TpOverlapMethod::bulk, 8, 1}));
  EXPECT_EQ(*parse_tp_overlap_setting("ring_exchange:1", TpOverlapGemm::fc2_fprop, &rule),
            (TpOverlapSetting{TpOverlapMethod::ring_exchange, 1, 0}));
  EXPECT_FALSE(parse_tp_overlap_setting("pipeline:24", TpOverlapGemm::qkv_fprop, &rule));
  EXPECT_NE(rule.find("reduce-scatter only"), std::string::npos);
  EXPECT_FALSE(parse_tp_overlap_setting("ring_exchange", TpOverlapGemm::qkv_wgrad, &rule));
  EXPECT_FALSE(parse_tp_overlap_setting("bulk:8:4", TpOverlapGemm::proj_fprop, &rule));
  EXPECT_FALSE(parse_tp_overlap_setting("pipeline:x", TpOverlapGemm::proj_fprop, &rule));
  EXPECT_FALSE(parse_tp_overlap_setting("rings", TpOverlapGemm::proj_fprop, &rule));
}

}  // namespace
}  // namespace trainsim
