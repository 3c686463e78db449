// Compute beside NCCL's gradient and parameter collectives loses the SMs their CTAs hold
// (sim/step/nccl_overlap.hpp: NCCL_MIN_CTAS, cluster.nccl_min_ctas), in place of the flat
// training.overlap_slowdown where the CTA count and the GPU's SM count are stated.

#include <gtest/gtest.h>

#include <vector>

#include "sim/step/nccl_overlap.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"

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
  return testing::simulated_fields(s, reduce, [](const StepResult& r) { return std::vector<double>{r.step_time_s}; })[0];
}

// The CTAs replace training.overlap_slowdown beside the gradient and parameter collectives:
// 32 CTAs of 152 SMs give the step of a flat 32/120, and more CTAs a longer step.
TEST(NcclOverlap, TheCtasSlowTheComputeBesideTheGradientCollectives) {
  const double ctas32 = step_time(scenario(k_dp, {{"cluster.nccl_min_ctas", "32"}}));
  const double flat = step_time(scenario(k_dp, {{"training.overlap_slowdown", "0.26666666666666666"}}));
  EXPECT_NEAR(ctas32, flat, 1e-12 * flat);
  const double ctas8 = step_time(scenario(k_dp, {{"cluster.nccl_min_ctas", "8"}}));
  EXPECT_LT(ctas8, ctas32);
  // The key moves the step: the overlapped collectives run beside compute.
  EXPECT_NE(ctas8, step_time(scenario(k_dp, {{"training.overlap_slowdown", "0.5"}})));
  // Symmetry: every replica alike, the reduced step equals --full.
  const Scenario s = scenario(k_dp, {{"cluster.nccl_min_ctas", "16"}});
  EXPECT_NEAR(step_time(s, true), step_time(s, false), 1e-9 * step_time(s, true));
}

}  // namespace
}  // namespace trainsim
