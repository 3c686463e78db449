// Compute beside NCCL's gradient and parameter collectives loses the SMs their CTAs hold
// (sim/step/nccl_overlap.hpp: NCCL_MIN_CTAS, cluster.nccl_min_ctas), per op: a GEMM's waves on
// the SMs left, as its kernel launches, and the HBM bandwidth NCCL's traffic takes; in place of
// the flat training.overlap_slowdown where the CTA count and the GPU's SM count are stated.

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "sim/compute/roofline_compute_model.hpp"
#include "sim/step/nccl_overlap.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/tp_overlap_cost.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {
namespace {

using testing::scenario;

// Llama 3 8B cut to 4 layers on two GB200 trays: DP 4 with the distributed optimizer, its
// gradient reduce-scatters and parameter all-gathers overlapped with the backward and forward.
const testing::Settings k_dp = testing::small_gb200_llama3_8b();

TEST(NcclOverlap, ComputeRunsOnTheSmsTheCtasLeave) {
  // ctas / (sms - ctas): the work of all sms spread over the rest.
  EXPECT_DOUBLE_EQ(nccl_overlap_slowdown(152, 16, 0.1), 16.0 / 136.0);
  EXPECT_DOUBLE_EQ(nccl_overlap_slowdown(132, 32, 0.1), 32.0 / 100.0);
  // Unstated CTAs or SMs, or no SM left: the flat fraction.
  EXPECT_DOUBLE_EQ(nccl_overlap_slowdown(152, 0, 0.1), 0.1);
  EXPECT_DOUBLE_EQ(nccl_overlap_slowdown(0, 16, 0.1), 0.1);
  EXPECT_DOUBLE_EQ(nccl_overlap_slowdown(16, 16, 0.1), 0.1);
}

TEST(NcclOverlap, TheScenarioSetsTheCtasAndTheGpuItsSms) {
  const Scenario flat = scenario(k_dp);
  EXPECT_EQ(flat.cluster.gpu.sms, 152);  // topologies/presets/gpus/gb200.ini
  EXPECT_EQ(flat.cluster.nccl_min_ctas, 0);
  EXPECT_DOUBLE_EQ(nccl_overlap_slowdown(flat), flat.training.overlap_slowdown);
  EXPECT_DOUBLE_EQ(nccl_overlap_slowdown(scenario(k_dp, {{"cluster.nccl_min_ctas", "16"}})), 16.0 / 136.0);
}

double step_time(const Scenario& s, bool reduce = true) {
  return testing::simulated_fields(s, reduce,
                                   [](const StepResult& r) { return std::vector<double>{r.step_time_s}; })[0];
}

GpuSpec preset(const char* name) {
  const std::optional<GpuSpec> gpu = gpu_preset(name);
  EXPECT_TRUE(gpu.has_value()) << name;
  return gpu.value_or(GpuSpec{});
}

// A persistent kernel's CTAs each hold a fixed share of the tiles: with fewer SMs than CTAs
// the CTAs that find none run their share after the first ones end (a second wave).
TEST(NcclOverlap, PersistentCtasThatFindNoSmRunASecondWave) {
  // 264 tiles on 132 CTAs, 2 each: on 108 SMs the last 24 CTAs start at 2 and end at 4.
  EXPECT_DOUBLE_EQ(persistent_slowdown(264, 132, 108), 2.0);
  // 400 tiles: CTAs 0-3 hold 4, the rest 3; the 24 left over start as the 3-tile CTAs end
  // (at 3) and end at 6, against 4 alone.
  EXPECT_DOUBLE_EQ(persistent_slowdown(400, 132, 108), 1.5);
  // Enough SMs for every CTA: no second wave.
  EXPECT_DOUBLE_EQ(persistent_slowdown(400, 100, 108), 1.0);
  EXPECT_DOUBLE_EQ(persistent_slowdown(0, 132, 108), 1.0);
}

TEST(NcclOverlap, TheArchitecturePicksHowAGemmLaunches) {
  EXPECT_EQ(gemm_launch(preset("h100-sxm")), GemmLaunch::persistent_static);
  EXPECT_EQ(gemm_launch(preset("gb200")), GemmLaunch::persistent_dynamic);
  EXPECT_EQ(gemm_launch(preset("a100-80g")), GemmLaunch::per_tile);
}

// NVIDIA developer forum thread 337991 (public.md D6): on an H100 (132 SMs) a GEMM launching
// exactly 132 CTAs beside a 24-CTA ncclAllGather went from ≈ 80 % to ≈ 47 % MFU (1.70x; "nearly
// doubles"). The thread states no shape; its poster's follow-up (thread 339078) gives the GEMM
// of that set-up as [2500, 5120] x [5120, 5120]: 20 x 20 = 400 tiles of 128 x 256, 132 CTAs
// (tile_scheduler_params.h: min(sm_count, tiles)). The second wave gives 1.5x, within 15 % of
// the measured 1.70 (the tile cuBLAS picked is not stated: 128 x 256 is tp_overlap_cost.hpp's).
TEST(NcclOverlap, AHopperGemmBesideTwentyFourCtasRunsTheForumsSecondWave) {
  const GpuSpec h100 = preset("h100-sxm");
  ASSERT_EQ(h100.sms, 132);
  const GemmShape forum{2500, 5120, 5120, 1};
  EXPECT_DOUBLE_EQ(gemm_tiles(forum), 400);
  const double slowdown = nccl_gemm_slowdown(forum, h100, 24);
  const double measured = 80.0 / 47.0;
  EXPECT_NEAR(slowdown, measured, 0.15 * measured);
  // The SMs' share alone (132 / 108) falls well short of it; tiles spread as SMs free
  // (Blackwell's launch) take no extra wave here: ceil(400 / 108) = ceil(400 / 132).
  EXPECT_LT(1.0 + nccl_overlap_slowdown(132, 24, 0.0), measured - 0.15 * measured);
  GpuSpec dynamic = h100;
  dynamic.architecture = "blackwell";
  EXPECT_DOUBLE_EQ(nccl_gemm_slowdown(forum, dynamic, 24), 1.0);
  // A GEMM of fewer tiles than the SMs left loses nothing; no CTAs, nothing.
  EXPECT_DOUBLE_EQ(nccl_gemm_slowdown({1024, 1024, 4096, 1}, h100, 24), 1.0);
  EXPECT_DOUBLE_EQ(nccl_gemm_slowdown(forum, h100, 0), 1.0);
}

// Tiles that flow onto the free SMs (Blackwell's cluster launch control) pay in whole waves.
TEST(NcclOverlap, ABlackwellGemmPaysWholeWavesOnTheSmsLeft) {
  const GpuSpec gb200 = preset("gb200");
  ASSERT_EQ(gb200.sms, 152);
  // 152 tiles: one wave on 152 SMs, two on the 136 that 16 CTAs leave.
  EXPECT_DOUBLE_EQ(nccl_gemm_slowdown({128 * 8, 256 * 19, 4096, 1}, gb200, 16), 2.0);
  // 136 tiles: one wave either way.
  EXPECT_DOUBLE_EQ(nccl_gemm_slowdown({128 * 8, 256 * 17, 4096, 1}, gb200, 16), 1.0);
}

// NVIDIA/nccl#1428 (public.md D6): on an A100-SXM4-80GB, beside an NCCL all-gather at the
// 300 GB/s the poster states for NVLink, a GEMM went 1.18 -> 2.08 ms (1.76x) and attention
// 0.18 -> 0.33 ms (1.83x); the maintainer: memory bandwidth, NCCL's traffic at 2x to 3x its
// link's bytes. No shape is stated. A kernel that streams the HBM at its datasheet 2,039
// GB/s keeps 2,039 - 3 x 300 = 1,139 GB/s beside it: 1.79x, within 5 % of both.
TEST(NcclOverlap, AMemoryBoundKernelSharesTheHbmWithNcclsTraffic) {
  const GpuSpec a100 = preset("a100-80g");
  ASSERT_DOUBLE_EQ(a100.hbm_bandwidth_Bps, 2039e9);
  ASSERT_DOUBLE_EQ(a100.nvlink_bandwidth_Bps, 300e9);
  // The CTA count is not stated: 8, few enough that the SMs' share (108 / 100) stays below.
  const NcclBeside beside{a100, 8, 3.0 * a100.nvlink_bandwidth_Bps};
  Op streaming;
  streaming.kind = OpKind::elementwise;
  streaming.bytes = 2039e9 * 1e-3;  // 1 ms at the datasheet bandwidth
  const double slowdown = nccl_op_slowdown(streaming, 1e-3, beside);
  EXPECT_DOUBLE_EQ(slowdown, 2039.0 / 1139.0);
  EXPECT_NEAR(slowdown, 2.08 / 1.18, 0.05 * 2.08 / 1.18);
  EXPECT_NEAR(slowdown, 0.33 / 0.18, 0.05 * 0.33 / 0.18);
  // A kernel of few bytes for its time keeps the SMs' share: 108 / 100.
  streaming.bytes = 1e6;
  EXPECT_DOUBLE_EQ(nccl_op_slowdown(streaming, 1e-3, beside), 108.0 / 100.0);
  // A compute-bound GEMM of many tiles (on an A100, one CTA per tile): its waves on 100 SMs.
  Op gemm;
  gemm.kind = OpKind::gemm;
  gemm.gemm = {8192, 8192, 8192, 1};  // 64 x 32 = 2048 tiles: 19 waves on 108 SMs, 21 on 100
  gemm.bytes = 3 * 8192.0 * 8192 * 2;
  EXPECT_DOUBLE_EQ(nccl_op_slowdown(gemm, 5e-3, beside), 21.0 / 19.0);
  // No CTA count: not priced.
  EXPECT_DOUBLE_EQ(nccl_op_slowdown(gemm, 5e-3, NcclBeside{a100, 0, 9e11}), 1.0);
}

// The data-parallel group's link sets NCCL's HBM traffic: NVLink inside one NVLink domain,
// the GPU's NICs across domains.
TEST(NcclOverlap, NcclsHbmTrafficIsThreeTimesItsLink) {
  const Scenario s = scenario(k_dp, {{"cluster.nccl_min_ctas", "16"}});
  const NcclBeside b = nccl_beside(s);
  EXPECT_EQ(b.ctas, 16);
  EXPECT_EQ(b.gpu.sms, 152);
  EXPECT_DOUBLE_EQ(b.hbm_Bps, 3.0 * s.cluster.nvlink_bandwidth_Bps);  // two trays of one rack
}

// A pass is slowed by its ops' added seconds over its compute; without a CTA count, the flat
// training.overlap_slowdown.
TEST(NcclOverlap, APassIsSlowedByItsOpsAddedSeconds) {
  const Scenario flat = scenario(k_dp);
  EXPECT_DOUBLE_EQ(nccl_pass_slowdown(0.5, 2.0, flat), flat.training.overlap_slowdown);
  const Scenario priced = scenario(k_dp, {{"cluster.nccl_min_ctas", "16"}});
  EXPECT_DOUBLE_EQ(nccl_pass_slowdown(0.5, 2.0, priced), 0.25);
  EXPECT_DOUBLE_EQ(nccl_pass_slowdown(0.0, 2.0, priced), 0.0);
}

double forward_extra_s(const Scenario& s) {
  const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
  return build_step_costs(s, compute, false).stages.at(0).chunks.at(0).forward.nccl_extra_s;
}

// The step's costs add each op's extra seconds as many times as the op runs, each priced at
// its own time: a pass's extra grows by the same amount with every layer.
TEST(NcclOverlap, EachLayerAddsItsOpsExtraSeconds) {
  const auto extra = [](const char* layers) {
    return forward_extra_s(scenario(k_dp, {{"cluster.nccl_min_ctas", "16"}, {"model.layers", layers}}));
  };
  const double one = extra("1"), two = extra("2"), three = extra("3");
  EXPECT_GT(one, 0);
  EXPECT_NEAR(three - two, two - one, 1e-9 * three);
  // No CTA count: nothing priced (the flat fraction stands in, nccl_pass_slowdown).
  EXPECT_DOUBLE_EQ(forward_extra_s(scenario(k_dp)), 0.0);
}

// With the CTAs stated the pass's own slowdown replaces training.overlap_slowdown beside the
// gradient and parameter collectives: the flat key no longer moves the step, more CTAs make
// it longer.
TEST(NcclOverlap, TheCtasSlowTheComputeBesideTheGradientCollectives) {
  const double ctas32 = step_time(scenario(k_dp, {{"cluster.nccl_min_ctas", "32"}}));
  const double ctas8 = step_time(scenario(k_dp, {{"cluster.nccl_min_ctas", "8"}}));
  EXPECT_LT(ctas8, ctas32);
  const Scenario s = scenario(k_dp, {{"cluster.nccl_min_ctas", "16"}});
  const double flat = step_time(s);
  // The flat key moves only what runs beside other communication (none here).
  EXPECT_DOUBLE_EQ(step_time(scenario(k_dp, {{"cluster.nccl_min_ctas", "16"}, {"training.overlap_slowdown", "0.5"}})),
                   flat);
  // Symmetry: every replica alike, the reduced step equals --full.
  EXPECT_NEAR(step_time(s, true), step_time(s, false), 1e-9 * step_time(s, true));
}

}  // namespace
}  // namespace trainsim
