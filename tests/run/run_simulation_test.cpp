// The run-level simulation against Young's and Daly's optimum intervals (public.md E4) and
// the properties a run with failures and checkpoints must have.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/checkpoint_size.hpp"
#include "sim/run/checkpoint_interval.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "tests/engine/isolated_run.hpp"

namespace trainsim {
namespace {

// Llama 3 8B on `nodes` DGX H100 nodes, checkpoints of `cost_s`, nodes failing every
// `node_mtbf_s` on average, for `days`.
Scenario run_scenario(int nodes, double cost_s, double node_mtbf_s, double days, const std::string& interval,
                      int seed) {
  std::vector<IniEntry> e{{"model.preset", "llama3-8b", "t"},
                          {"cluster.nodes", std::to_string(nodes), "t"},
                          {"run.duration", std::to_string(days) + "d", "t"},
                          {"run.seed", std::to_string(seed), "t"},
                          {"failures.node_mtbf", std::to_string(node_mtbf_s) + "s", "t"},
                          {"checkpoint.interval", interval, "t"}};
  Scenario s = load_scenario(e, "t");
  s.checkpoint.write_bandwidth_Bps = checkpoint_size(s.model, s.training, s.parallel).total_bytes / cost_s;
  return s;
}

struct RunMetrics {
  double ettr, interval_s, failures, interrupted, lost_s, checkpoints;
};

RunMetrics simulate(const Scenario& s, double step_s = 1.0) {
  const std::vector<double> v = engine::test::run_isolated([&] {
    const RunResult r = simulate_run(s, step_s);
    return std::vector<double>{r.effective_training_time_ratio,
                               r.checkpoint_interval_s,
                               static_cast<double>(r.failures),
                               static_cast<double>(r.checkpoints_interrupted),
                               r.lost_work_s,
                               static_cast<double>(r.checkpoints_written)};
  });
  return {v[0], v[1], v[2], v[3], v[4], v[5]};
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

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

TEST(RunSimulation, TheDataCursorPreventsDuplicates) {
  Scenario with = run_scenario(64, 60, 200 * 3600.0, 20, "auto", 1);
  Scenario without = with;
  without.checkpoint.save_data_cursor = false;
  const std::vector<double> v = engine::test::run_isolated([&] {
    const RunResult r = simulate_run(with, 1.0);
    return std::vector<double>{r.samples_duplicated, r.samples_skipped, static_cast<double>(r.failures)};
  });
  const std::vector<double> w = engine::test::run_isolated([&] {
    const RunResult r = simulate_run(without, 1.0);
    return std::vector<double>{r.samples_duplicated, r.samples_skipped};
  });
  ASSERT_GT(v[2], 0);  // failures happened
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], 0);
  EXPECT_GT(w[0], 0);
}

}  // namespace
}  // namespace trainsim
