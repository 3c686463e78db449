// The stage actors' lazy sleeps (sim/step/lazy_clock.hpp) against one SimGrid sleep per
// compute piece and cached collective: the same step, breakdown and activity records, to
// rounding, over every path that starts, waits for or runs beside an activity. Each
// simulation runs in a forked child (one SimGrid engine per process).

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sim/step/step_simulation.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

std::vector<double> simulate(const Scenario& s, bool lazy) {
  StepOptions options;
  options.lazy_sleeps = lazy;
  return testing::step_outputs(s, options);
}

void expect_lazy_equals_eager(const Scenario& s, const std::string& what) {
  const std::vector<double> lazy = simulate(s, true);
  const std::vector<double> eager = simulate(s, false);
  ASSERT_EQ(lazy.size(), eager.size()) << what;
  ASSERT_GT(lazy[0], 0) << what;
  // Times are sums of the same pieces rounded in another order: equal to 1e-9 s (times are
  // under a second here), energies and bytes to 1e-9 of themselves.
  for (size_t i = 0; i < lazy.size(); ++i)
    EXPECT_NEAR(lazy[i], eager[i], 1e-9 * (1.0 + std::abs(eager[i]))) << what << " #" << i;
}

// Two nodes of 8 GPUs: TP collectives cached after their first run, pipeline transfers and
// gradient reductions across the fabric.
const Settings k_base{{"model.preset", "llama3-8b"},   {"model.layers", "8"},      {"model.seq_len", "2048"},
                      {"training.grad_accum", "4"},    {"parallel.tp", "4"},       {"parallel.pp", "2"},
                      {"cluster.nodes", "2"},          {"cluster.fabric", "rail-optimized"}};

TEST(LazyClock, StepEqualsOneSleepPerPiece) {
  expect_lazy_equals_eager(scenario(k_base), "1f1b");
  // Interleaved, the distributed optimizer's gathers beside the first forward, reductions
  // beside the last backwards (compute slowed while they run), two steps.
  expect_lazy_equals_eager(scenario(k_base, {{"parallel.schedule", "interleaved"},
                                             {"parallel.virtual_stages", "2"},
                                             {"parallel.zero", "1"},
                                             {"parallel.overlap_param_gather", "true"},
                                             {"training.overlap_slowdown", "0.2"},
                                             {"run.steps", "2"}}),
                           "interleaved, zero 1, two steps");
  // Weight gradients deferred: the schedule tests inputs between passes.
  expect_lazy_equals_eager(scenario(k_base, {{"parallel.schedule", "zb-h1"}}), "zb-h1");
  // A slow input pipeline, and sends the sender waits for.
  expect_lazy_equals_eager(scenario(k_base, {{"training.sample_load_time", "30ms"}}), "data loading");
}

TEST(LazyClock, ShardingOffloadAndContextParallelEqualOneSleepPerPiece) {
  expect_lazy_equals_eager(scenario(k_base, {{"parallel.zero", "3"}, {"parallel.tp", "2"}}), "zero 3");
  expect_lazy_equals_eager(scenario(k_base, {{"parallel.zero", "2"}, {"training.offload", "cpu"}}), "offload");
  expect_lazy_equals_eager(scenario(k_base, {{"parallel.cp", "2"}, {"parallel.pp", "1"}}), "ring cp");
  expect_lazy_equals_eager(
      scenario(k_base, {{"parallel.cp", "2"}, {"parallel.pp", "1"}, {"parallel.cp_algo", "all-gather"}}),
      "all-gather cp");
  expect_lazy_equals_eager(
      scenario(k_base, {{"parallel.tp_comm_overlap", "true"}, {"parallel.sequence_parallel", "true"}}), "tp overlap");
}

TEST(LazyClock, ExpertParallelStepEqualsOneSleepPerPiece) {
  expect_lazy_equals_eager(scenario(testing::small_mixtral(4, 2)), "moe");
}

}  // namespace
}  // namespace trainsim
