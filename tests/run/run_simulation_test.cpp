// The run-level simulation against Young's and Daly's optimum intervals (public.md E4) and
// the properties a run with failures and checkpoints must have.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sim/run/checkpoint_interval.hpp"
#include "tests/run/run_test_support.hpp"

namespace trainsim {
namespace {

using test::run;
using test::run_scenario;

struct RunMetrics {
  double ettr, interval_s, failures, interrupted, lost_s, checkpoints;
};

RunMetrics simulate(const Scenario& s, double step_s = 1.0) {
  const RunResult r = run(s, step_s);
  return {r.effective_training_time_ratio,
          r.checkpoint_interval_s,
          static_cast<double>(r.failures),
          static_cast<double>(r.checkpoints_interrupted),
          r.lost_work_s,
          static_cast<double>(r.checkpoints_written)};
}

TEST(RunSimulation, BestIntervalIsYoungsWhenCheckpointsAreCheap) {
  // C = 60 s, M = 2 h (16 nodes of 32 h): Young's interval sqrt(2 C M) = 929.5 s.
  const double cost = 60, node_mtbf = 32 * 3600.0, mtti = node_mtbf / 16;
  const double young = young_interval_s(cost, mtti);
  double best_interval = 0, best_ettr = -1;
  for (double factor = 0.5; factor <= 2.001; factor += 0.1) {
    double ettr = 0;
    for (int seed = 1; seed <= 4; ++seed)
      ettr += simulate(run_scenario(16, cost, node_mtbf, 150, std::to_string(factor * young) + "s", seed)).ettr;
    if (ettr > best_ettr) {
      best_ettr = ettr;
      best_interval = factor * young;
    }
  }
  EXPECT_NEAR(best_interval / young, 1.0, 0.15) << "best " << best_interval << " s, Young " << young << " s";
}

TEST(RunSimulation, AutoPicksDaly) {
  const double cost = 60, node_mtbf = 32 * 3600.0;
  const RunMetrics r = simulate(run_scenario(16, cost, node_mtbf, 10, "auto", 1));
  EXPECT_NEAR(r.interval_s, daly_interval_s(cost, node_mtbf / 16), 1e-6);
}

TEST(RunSimulation, AFailureDuringAWriteFallsBackToThePreviousCheckpoint) {
  // Checkpoints as long as the training between them, failures every ~2 h: some writes are hit.
  const double cost = 1800;
  const RunMetrics r = simulate(run_scenario(16, cost, 32 * 3600.0, 30, "1800s", 3));
  ASSERT_GT(r.interrupted, 0);
  // Each interrupted write loses at least the segment trained before it.
  EXPECT_GE(r.lost_s, r.interrupted * 1800 - 1e-6);
}

TEST(RunSimulation, MoreNodesMoreInterruptionsLessTraining) {
  const RunMetrics small = simulate(run_scenario(16, 60, 1000 * 3600.0, 30, "1800s", 1));
  const RunMetrics large = simulate(run_scenario(256, 60, 1000 * 3600.0, 30, "1800s", 1));
  EXPECT_GT(large.failures, 4 * small.failures);
  EXPECT_LT(large.ettr, small.ettr);
}

TEST(RunSimulation, SameSeedSameRunOtherSeedOtherFailures) {
  const Scenario a = run_scenario(64, 60, 200 * 3600.0, 20, "auto", 1);
  const RunMetrics x = simulate(a), y = simulate(a);
  EXPECT_EQ(x.ettr, y.ettr);
  EXPECT_EQ(x.failures, y.failures);
  EXPECT_EQ(x.lost_s, y.lost_s);
  const RunMetrics z = simulate(run_scenario(64, 60, 200 * 3600.0, 20, "auto", 2));
  EXPECT_NE(z.lost_s, x.lost_s);
}

TEST(RunSimulation, WithoutFailuresOnlyCheckpointsCost) {
  const RunMetrics r = simulate(run_scenario(16, 60, 0, 1, "3600s", 1));
  EXPECT_EQ(r.failures, 0);
  // 1 h of training per 60 s checkpoint.
  EXPECT_NEAR(r.ettr, 3600.0 / 3660.0, 0.002);
}

TEST(RunSimulation, TheDataCursorPreventsDuplicates) {
  Scenario with = run_scenario(64, 60, 200 * 3600.0, 20, "auto", 1);
  Scenario without = with;
  without.checkpoint.save_data_cursor = false;
  const RunResult a = run(with), b = run(without);
  ASSERT_GT(a.failures, 0);
  EXPECT_EQ(a.samples_duplicated, 0);
  EXPECT_EQ(a.samples_skipped, 0);
  EXPECT_GT(b.samples_duplicated, 0);
}

TEST(RunSimulation, AStepTargetEndsTheRunWhenTrained) {
  // No failures, 1 s steps, a 60 s checkpoint every 3600 steps: 10,000 steps take 10,000 s
  // plus two checkpoints (after steps 3600 and 7200; none at the end).
  Scenario s = run_scenario(16, 60, 0, 0, "3600s", 1);
  s.run.duration_s = 0;
  s.run.train_steps = 10000;
  const RunResult r = run(s);
  EXPECT_EQ(r.steps_completed, 10000);
  EXPECT_NEAR(r.wall_time_s, 10000 + 2 * 60, 1e-6);
  // With failures it takes longer but still trains every step; a duration caps it.
  s.failures.mtbf_s = 16 * 3600.0;
  const RunResult f = run(s);
  EXPECT_EQ(f.steps_completed, 10000);
  EXPECT_GT(f.failures, 0);
  EXPECT_GT(f.wall_time_s, r.wall_time_s);
  s.run.duration_s = 5000;
  const RunResult capped = run(s);
  EXPECT_EQ(capped.wall_time_s, 5000);
  EXPECT_LT(capped.steps_completed, 10000);
}

TEST(RunSimulation, AnIntervalInSteps) {
  const Scenario s = load_scenario(
      std::vector<IniEntry>{
          {"model.preset", "llama3-8b", "t"}, {"run.duration", "1d", "t"}, {"checkpoint.interval", "500steps", "t"}},
      "t");
  EXPECT_EQ(s.checkpoint.interval_steps, 500);
  const RunResult r = test::run(s, 2.0);
  EXPECT_DOUBLE_EQ(r.checkpoint_interval_s, 1000.0);
  for (const CheckpointRecord& c : r.checkpoints) EXPECT_EQ(c.steps % 500, 0);
  EXPECT_GT(r.checkpoints_written, 10);
}

}  // namespace
}  // namespace trainsim
