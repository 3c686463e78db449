// Stragglers in a long run (variations.straggler_mtbf): GPUs that turn slow while the job
// trains, slow its steps until found, and are drained by a planned restart on a spare.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/run/run_test_support.hpp"

namespace trainsim {
namespace {

using test::run_scenario;
using test::unit_costs;

constexpr double k_step_s = 2.0;
constexpr double k_straggler_step_s = 2.2;  // a straggler's step: 10 % longer

RunResult run_with_stragglers(const Scenario& s) {
  SizeCostTable costs = unit_costs(s, k_step_s);
  for (auto& [dp, c] : costs) c.straggler_step_time_s = c.step_time_s * k_straggler_step_s / k_step_s;
  const std::string json = forked_call([&] { return run_json(*simulate_run(s, costs).result, true).dump(); });
  return run_from_json(nlohmann::json::parse(json));
}

// 64 nodes (512 GPUs) for 20 days, no failures; each GPU turns slow every 100 days on average:
// about 100 stragglers.
Scenario straggling(double detection_s) {
  Scenario s = run_scenario(64, 60, 0, 20, "auto", 3);
  s.variations.straggler_mtbf_s = 100 * 86400.0;
  s.variations.straggler_detection_s = detection_s;
  return s;
}

TEST(StragglerRun, SlowerStepsUntilFoundThenADrain) {
  const Scenario s = straggling(3600);
  const RunResult r = run_with_stragglers(s);
  EXPECT_GT(r.stragglers, 60);
  EXPECT_LT(r.stragglers, 150);
  // One drain per slowed window: stragglers that appear in one window are swapped out with it.
  EXPECT_GT(r.straggler_drains, 0);
  EXPECT_LE(r.straggler_drains, r.stragglers);
  EXPECT_EQ(r.restarts, r.straggler_drains);
  EXPECT_EQ(r.failures, 0);
  // Each window trains an hour at 2.2 s a step against 2.0: 1/11 of it is slowdown (the last
  // window may run into the run's end, undrained).
  const double per_window_s = 3600 * (1 - k_step_s / k_straggler_step_s);
  EXPECT_LE(r.straggler_slowdown_s, (r.straggler_drains + 1) * per_window_s * (1 + 1e-9));
  EXPECT_GE(r.straggler_slowdown_s, 0.9 * r.straggler_drains * per_window_s);
  // Where the wall time goes still adds up, the slowdown a part of its own.
  const double parts = r.useful_time_s + r.lost_work_s + r.checkpoint_overhead_s + r.restart_overhead_s +
                       r.waiting_for_nodes_s + r.straggler_slowdown_s + r.unfinished_step_s;
  EXPECT_NEAR(parts, r.wall_time_s, 1e-9 * r.wall_time_s);
  // Against the same run without stragglers: less training.
  Scenario uniform = s;
  uniform.variations = VariationSpec{};
  const RunResult u = run_with_stragglers(uniform);
  EXPECT_EQ(u.stragglers, 0);
  EXPECT_EQ(u.straggler_slowdown_s, 0);
  EXPECT_LT(r.useful_time_s, u.useful_time_s - r.straggler_slowdown_s);
  // Same seed, same run.
  const RunResult again = run_with_stragglers(s);
  EXPECT_EQ(again.stragglers, r.stragglers);
  EXPECT_EQ(again.straggler_slowdown_s, r.straggler_slowdown_s);
  EXPECT_EQ(again.useful_time_s, r.useful_time_s);
}

TEST(StragglerRun, FoundAtOnceCostsTheDrainsAlone) {
  const RunResult r = run_with_stragglers(straggling(0));
  EXPECT_GT(r.stragglers, 60);
  EXPECT_EQ(r.straggler_drains, r.stragglers);
  EXPECT_NEAR(r.straggler_slowdown_s, 0, 1e-6);
  EXPECT_GT(r.restart_overhead_s, r.straggler_drains * 600 * 0.99);  // failures.restart each
}

TEST(StragglerRun, StragglersLeaveTheFailuresDrawsAlone) {
  // The stragglers draw from their own stream: the failures fall when they would without them.
  Scenario s = run_scenario(64, 60, 30 * 86400.0, 20, "auto", 5);
  s.variations.straggler_mtbf_s = 1e6 * 86400.0;  // none in 20 days
  Scenario none = s;
  none.variations = VariationSpec{};
  const RunResult a = run_with_stragglers(s);
  const RunResult b = run_with_stragglers(none);
  EXPECT_EQ(a.stragglers, 0);
  EXPECT_EQ(a.failures, b.failures);
  EXPECT_EQ(a.useful_time_s, b.useful_time_s);
}

}  // namespace
}  // namespace trainsim
