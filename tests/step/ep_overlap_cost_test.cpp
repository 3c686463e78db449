// Compute beside an expert-parallel collective of a combined-1F1B pair
// (sim/step/ep_overlap_cost.hpp): NCCL's all-to-all holds its P2P channels' thread blocks,
// GEMMs lose SMs in waves of their output tiles, other kernels their SMs' share, and all of
// them share the HBM with the collective's bytes.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/step/dispatcher_rates.hpp"
#include "sim/step/ep_overlap_cost.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

// Times an op at 1 PFLOP/s of its FLOPs plus 1 TB/s of its bytes: any fixed time per op will do.
class FixedRate : public ComputeModel {
 public:
  double op_time_s(const Op& op) const override { return op.flops / 1e15 + op.bytes / 1e12; }
  std::string description() const override { return "fixed"; }
};

Op gemm(double m, double n, double k, double batch = 1) {
  Op op;
  op.name = "experts.up";
  op.kind = OpKind::gemm;
  op.gemm = {m, n, k, batch};
  op.flops = 2 * m * n * k * batch;
  return op;
}

Op streaming(double bytes) {
  Op op;
  op.name = "norm";
  op.kind = OpKind::norm;
  op.bytes = bytes;
  return op;
}

GpuSpec h100() {
  GpuSpec g;
  g.sms = 132;
  g.hbm_bandwidth_Bps = 3.35e12;
  return g;
}

TEST(EpOverlapCost, NcclAllToAllHoldsOneBlockPerP2pChannel) {
  EXPECT_EQ(nccl_alltoall_ctas(false), 32);  // one 8-GPU H100 node: 32 P2P channels
  EXPECT_EQ(nccl_alltoall_ctas(true), 16);   // two nodes: 16
}

TEST(EpOverlapCost, AGemmOfOneWaveTakesTwoBesideTheCollective) {
  // 132 output tiles of 128 x 256 (public.md D6: a 132-CTA GEMM beside a 24-CTA all-gather
  // went from ~80 to ~47 % MFU, its tiles pushed into a second wave).
  const FixedRate compute;
  const std::vector<Op> ops{gemm(128 * 12, 256 * 11, 4096)};
  const double alone = compute.time_s(ops[0]);
  EXPECT_DOUBLE_EQ(beside_ep_s(ops, compute, 1.0, h100(), 24, 0), 2 * alone);
  // Many waves: close to the SMs' share; 8 experts' 4,096 x 1,536 outputs, 1,536 tiles, take
  // 12 waves on 132 SMs and 16 on 100.
  const std::vector<Op> experts{gemm(4096, 1536, 2048, 8)};
  EXPECT_DOUBLE_EQ(beside_ep_s(experts, compute, 1.0, h100(), 32, 0), 16.0 / 12.0 * compute.time_s(experts[0]));
}

TEST(EpOverlapCost, OtherKernelsLoseTheSmsShareAndAllShareTheHbm) {
  const FixedRate compute;
  const std::vector<Op> norm{streaming(1e9)};
  const double alone = compute.time_s(norm[0]);  // 1 ms
  EXPECT_DOUBLE_EQ(beside_ep_s(norm, compute, 1.0, h100(), 16, 0), alone * 132.0 / 116.0);
  // The collective's 10 GB through an HBM of 3.35 TB/s outlast the kernel on the SMs left.
  EXPECT_DOUBLE_EQ(beside_ep_s(norm, compute, 1.0, h100(), 16, 10e9), 11e9 / 3.35e12);
}

TEST(EpOverlapCost, NothingTakenOrNoSmCountLeavesTheTimeAlone) {
  const FixedRate compute;
  const std::vector<Op> ops{gemm(1024, 4096, 512), streaming(1e8)};
  const double alone = compute.time_s(ops[0]) + compute.time_s(ops[1]);
  EXPECT_DOUBLE_EQ(beside_ep_s(ops, compute, 1.0, h100(), 0, 1e9), alone);
  GpuSpec unknown = h100();
  unknown.sms = 0;
  EXPECT_DOUBLE_EQ(beside_ep_s(ops, compute, 1.0, unknown, 24, 1e9), alone);
}

TEST(EpOverlapCost, ExpertOpsCountAtTheBusiestRanksLoad) {
  const FixedRate compute;
  const std::vector<Op> ops{gemm(128 * 12, 256 * 11, 4096)};  // experts.*: op_load scales it
  EXPECT_DOUBLE_EQ(beside_ep_s(ops, compute, 1.5, h100(), 24, 0), 1.5 * 2 * compute.time_s(ops[0]));
}

TEST(EpOverlapCost, TheCollectivesSmsByDispatcher) {
  using testing::scenario;
  const auto with = [](const char* dispatcher, testing::Settings extra = {}) {
    extra.emplace_back("parallel.moe_dispatcher", dispatcher);
    return scenario(testing::small_mixtral(2, 1), extra);
  };
  EXPECT_EQ(ep_overlap_sms(with("alltoall"), false), 32);
  EXPECT_EQ(ep_overlap_sms(with("alltoall"), true), 16);
  EXPECT_EQ(ep_overlap_sms(with("deepep"), true), 20);
  EXPECT_EQ(ep_overlap_sms(with("hybridep"), true), 8);
  EXPECT_EQ(ep_overlap_sms(with("hybridep", {{"parallel.moe_dispatcher_sms", "32"}}), true), 32);
}

}  // namespace
}  // namespace trainsim
