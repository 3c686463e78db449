// Recoveries: a full checkpoint restores the run bit for bit; each omitted item diverges,
// in the way that item explains; the cursor omission's counts are the run simulation's.

#include <gtest/gtest.h>

#include <algorithm>

#include "drill/drill_test_spec.hpp"
#include "sim/drill/drill_runner.hpp"
#include "sim/drill/trainer.hpp"
#include "sim/run/data_cursor.hpp"

namespace trainsim::drill {
namespace {

using testing::fp16_spec;
using testing::small_spec;

constexpr long long k_fail = 25;  // dies during step 25: back to the checkpoint of step 20
constexpr long long k_checkpoint = 20;

TEST(DrillRecovery, FullCheckpointRestoreIsBitIdentical) {
  for (const DrillSpec& spec : {small_spec(), fp16_spec()}) {
    const TrainedRun reference = train(spec);
    const TrainedRun recovered = train(spec, {{k_fail, 12}, std::nullopt, std::nullopt});
    const RunComparison c = compare(reference, recovered);
    EXPECT_EQ(recovered.restarts, 2);
    EXPECT_EQ(recovered.steps_redone, (k_fail - 1 - k_checkpoint) + (12 - 1 - 10));
    EXPECT_TRUE(c.bit_identical);
    EXPECT_EQ(c.max_abs_loss_diff, 0.0);
    EXPECT_EQ(c.max_param_diff, 0.0);
    EXPECT_EQ(reference.samples, recovered.samples);
  }
}

TEST(DrillRecovery, RerunIsBitIdentical) {
  const TrainedRun a = train(small_spec(), {{k_fail}, CheckpointItem::rng, std::nullopt});
  const TrainedRun b = train(small_spec(), {{k_fail}, CheckpointItem::rng, std::nullopt});
  EXPECT_TRUE(compare(a, b).bit_identical);
  const DrillResult x = run_drill(small_spec(), {});
  const DrillResult y = run_drill(small_spec(), {});
  ASSERT_EQ(x.runs.size(), y.runs.size());
  for (size_t i = 0; i < x.runs.size(); ++i) {
    EXPECT_EQ(x.runs[i].max_abs_loss_diff, y.runs[i].max_abs_loss_diff) << x.runs[i].name;
    EXPECT_EQ(x.runs[i].max_param_diff, y.runs[i].max_param_diff) << x.runs[i].name;
  }
}

// The recovered run of `spec` without `item`, compared with the uninterrupted one.
struct Omitted {
  TrainedRun reference, run;
  RunComparison c;
};
Omitted omit(const DrillSpec& spec, CheckpointItem item) {
  Omitted o{train(spec), train(spec, {{k_fail}, item, std::nullopt}), {}};
  o.c = compare(o.reference, o.run);
  return o;
}

// Steps up to the checkpoint are the uninterrupted run's; the first step after it is where an
// omission shows.
void expect_identical_until_checkpoint(const Omitted& o) {
  for (long long s = 0; s < k_checkpoint; ++s)
    EXPECT_EQ(o.run.steps[static_cast<size_t>(s)].loss, o.reference.steps[static_cast<size_t>(s)].loss) << s;
}

TEST(DrillRecovery, OmittedRngRedrawsTheFirstStepsDropout) {
  const Omitted o = omit(small_spec(), CheckpointItem::rng);
  EXPECT_FALSE(o.c.bit_identical);
  EXPECT_GT(o.c.max_abs_loss_diff, 0.0);
  expect_identical_until_checkpoint(o);
  const auto i = static_cast<size_t>(k_checkpoint);  // step 21: same samples and learning rate, other masks
  EXPECT_EQ(o.run.samples[i], o.reference.samples[i]);
  EXPECT_EQ(o.run.steps[i].lr, o.reference.steps[i].lr);
  EXPECT_NE(o.run.steps[i].loss, o.reference.steps[i].loss);
  EXPECT_EQ(o.c.samples_duplicated, 0.0);
}

TEST(DrillRecovery, OmittedCursorRereadsTheFirstSamples) {
  const DrillSpec spec = small_spec();
  const Omitted o = omit(spec, CheckpointItem::cursor);
  EXPECT_FALSE(o.c.bit_identical);
  EXPECT_GT(o.c.max_abs_loss_diff, 0.0);
  expect_identical_until_checkpoint(o);
  EXPECT_EQ(o.run.samples[static_cast<size_t>(k_checkpoint)], o.reference.samples[0]);
  EXPECT_EQ(o.run.steps[static_cast<size_t>(k_checkpoint)].lr, o.reference.steps[static_cast<size_t>(k_checkpoint)].lr);
  // Steps 21..30 re-read the samples of steps 1..10: 10 steps of the global batch twice.
  const double batch = static_cast<double>(spec.layout.global_batch());
  EXPECT_EQ(o.c.samples_duplicated, 10 * batch);
  EXPECT_EQ(o.c.samples_skipped, 0.0);
}

TEST(DrillRecovery, OmittedCursorCountsAsTheRunSimulationsCursor) {
  // The run simulation's cursor model (sim/run/data_cursor) on the same history: checkpoints
  // at 10, 20; failures during 25 and 28 (back to 20 both times).
  const DrillSpec spec = small_spec();
  const TrainedRun run = train(spec, {{25, 28}, CheckpointItem::cursor, std::nullopt});
  DataCursor model(static_cast<double>(spec.layout.global_batch()), 1.0, false);
  model.trained_to(24);
  model.restarted_from(20);
  model.trained_to(27);
  model.restarted_from(20);
  model.trained_to(30);
  EXPECT_GT(run.samples_duplicated, 0.0);
  EXPECT_EQ(run.samples_duplicated, model.duplicated());
  EXPECT_EQ(run.samples_skipped, model.skipped());
  EXPECT_EQ(run.cursor_model_duplicated, model.duplicated());
  EXPECT_EQ(run.cursor_model_skipped, model.skipped());
}

TEST(DrillRecovery, OmittedOptimizerStateChangesTheUpdateNotTheSchedule) {
  const Omitted o = omit(small_spec(), CheckpointItem::optimizer);
  EXPECT_FALSE(o.c.bit_identical);
  EXPECT_GT(o.c.max_param_diff, 0.0);
  expect_identical_until_checkpoint(o);
  const auto i = static_cast<size_t>(k_checkpoint);
  // Step 21 itself is computed with the same weights; the reset moments change its update.
  EXPECT_EQ(o.run.steps[i].loss, o.reference.steps[i].loss);
  EXPECT_EQ(o.run.steps[i].lr, o.reference.steps[i].lr);
  EXPECT_NE(o.run.steps[i + 1].loss, o.reference.steps[i + 1].loss);
}

TEST(DrillRecovery, OmittedSchedulerWarmsUpAgain) {
  const Omitted o = omit(small_spec(), CheckpointItem::scheduler);
  EXPECT_FALSE(o.c.bit_identical);
  EXPECT_GT(o.c.max_abs_loss_diff, 0.0);
  expect_identical_until_checkpoint(o);
  EXPECT_EQ(o.run.steps[static_cast<size_t>(k_checkpoint)].lr, o.reference.steps[0].lr);
  EXPECT_NE(o.run.steps[static_cast<size_t>(k_checkpoint)].lr, o.reference.steps[static_cast<size_t>(k_checkpoint)].lr);
}

TEST(DrillRecovery, OmittedLossScaleStartsAgainAt2To16) {
  const DrillSpec spec = fp16_spec();
  const Omitted o = omit(spec, CheckpointItem::loss_scale);
  const auto i = static_cast<size_t>(k_checkpoint);
  ASSERT_LT(o.reference.steps[i].loss_scale, spec.loss_scale.initial);  // it backed off before step 21
  EXPECT_EQ(o.run.steps[i].loss_scale, spec.loss_scale.initial);
  EXPECT_FALSE(o.c.bit_identical);
  EXPECT_GT(o.c.max_abs_loss_diff, 0.0);
  EXPECT_GT(o.run.skipped_steps, o.reference.skipped_steps);  // the overflows happen again
}

TEST(DrillRecovery, Fp16SkipsOverflowStepsAndBacksOff) {
  const DrillSpec spec = fp16_spec();
  const TrainedRun run = train(spec);
  ASSERT_GT(run.skipped_steps, 0);
  EXPECT_TRUE(run.steps[0].skipped);
  EXPECT_EQ(run.steps[0].lr, 0.0);
  EXPECT_EQ(run.steps[1].loss_scale, spec.loss_scale.initial * spec.loss_scale.backoff);
  EXPECT_FALSE(run.steps.back().skipped);
  EXPECT_LT(run.steps.back().loss, run.steps.front().loss);
}

TEST(DrillRecovery, EveryOmissionInTheDrillDiverges) {
  DrillOptions options;
  options.fail_at = {k_fail};
  options.omit = {CheckpointItem::rng, CheckpointItem::cursor, CheckpointItem::optimizer, CheckpointItem::scheduler,
                  CheckpointItem::loss_scale};
  options.scaling = false;
  const DrillResult r = run_drill(fp16_spec(), options);
  ASSERT_EQ(r.runs.size(), 6u);
  EXPECT_TRUE(r.runs[0].bit_identical) << r.runs[0].name;
  for (size_t i = 1; i < r.runs.size(); ++i) {
    EXPECT_FALSE(r.runs[i].bit_identical) << r.runs[i].name;
    EXPECT_GT(r.runs[i].max_abs_loss_diff, 0.0) << r.runs[i].name;
  }
}

}  // namespace
}  // namespace trainsim::drill
