// Scaling semantics: B_global = micro_batch x grad_accum x dp; the same global batch at
// another data-parallel size changes only the summation order (nonzero, bounded); a global
// batch grown with dp moves the curve much further; a reshard on restore continues as the
// sampler allows.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "drill/drill_test_spec.hpp"
#include "sim/drill/drill_runner.hpp"
#include "sim/drill/sampler.hpp"
#include "sim/drill/trainer.hpp"

namespace trainsim::drill {
namespace {

using testing::small_spec;

// Stated bounds for the small drill (fp32 reduction, 30 steps): the same-batch run's step-1
// gradient within 1e-5 relative (fp32's roundoff is 6e-8; the orders add a few dozen terms),
// its loss curve within 1e-3 of the reference's (losses are ~4).
constexpr double k_gradient_rel_bound = 1e-5;
constexpr double k_loss_bound = 1e-3;

TEST(DrillScaling, GlobalBatchIsMicroBatchTimesAccumTimesDp) {
  for (const DataSampler sampler : {DataSampler::global, DataSampler::per_rank})
    for (const Layout& l : {Layout{1, 1, 1, 1}, Layout{2, 2, 2, 1}, Layout{8, 1, 3, 1}, Layout{3, 4, 1, 1}}) {
      SamplerCursor cursor;
      std::set<long long> seen;
      for (int step = 0; step < 3; ++step) {
        const StepSamples s = next_step_samples(sampler, l, cursor);
        long long count = 0;
        std::set<long long> this_step;
        for (const auto& rank : s)
          for (const auto& micro : rank) {
            EXPECT_EQ(static_cast<int>(micro.size()), l.micro_batch);
            count += static_cast<long long>(micro.size());
            this_step.insert(micro.begin(), micro.end());
          }
        EXPECT_EQ(count, static_cast<long long>(l.micro_batch) * l.grad_accum * l.dp);
        EXPECT_EQ(static_cast<long long>(this_step.size()), l.global_batch());
        // Each step is the next global batch of the stream, whichever sampler.
        EXPECT_EQ(*this_step.begin(), step * l.global_batch());
        EXPECT_EQ(*this_step.rbegin(), (step + 1) * l.global_batch() - 1);
        seen.insert(this_step.begin(), this_step.end());
      }
      EXPECT_EQ(static_cast<long long>(seen.size()), 3 * l.global_batch());
    }
}

TEST(DrillScaling, SameBatchAtAnotherDpDiffersOnlyByReductionOrder) {
  const DrillResult r = run_drill(small_spec(), {});
  const auto same = std::find_if(r.runs.begin(), r.runs.end(),
                                 [](const RunComparison& c) { return c.name.starts_with("same batch"); });
  ASSERT_NE(same, r.runs.end());
  EXPECT_EQ(same->layout.dp, 4);
  EXPECT_EQ(same->layout.global_batch(), small_spec().layout.global_batch());
  EXPECT_FALSE(same->bit_identical);
  EXPECT_GT(same->gradient_max_abs_diff, 0.0);
  EXPECT_LT(same->gradient_rel_l2_diff, k_gradient_rel_bound);
  EXPECT_GT(same->max_abs_loss_diff, 0.0);
  EXPECT_LT(same->max_abs_loss_diff, k_loss_bound);

  const auto grown = std::find_if(r.runs.begin(), r.runs.end(),
                                  [](const RunComparison& c) { return c.name.starts_with("batch grows"); });
  ASSERT_NE(grown, r.runs.end());
  EXPECT_EQ(grown->layout.global_batch(), 2 * small_spec().layout.global_batch());
  EXPECT_GT(grown->max_abs_loss_diff, 100 * same->max_abs_loss_diff);
}

TEST(DrillScaling, ReshardWithTheGlobalSamplerContinuesTheSampleSequence) {
  const DrillSpec spec = small_spec();
  const TrainedRun reference = train(spec);
  const Layout wider{4, 2, 1, 1};
  const TrainedRun run = train(spec, {{25}, std::nullopt, wider});
  EXPECT_EQ(run.samples_duplicated, 0.0);
  EXPECT_EQ(run.samples_skipped, 0.0);
  for (size_t s = 0; s < run.samples.size(); ++s) {
    std::vector<long long> a = run.samples[s], b = reference.samples[s];
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b) << "step " << s + 1;
  }
  EXPECT_EQ(run.steps.back().dp, 4);
  EXPECT_LT(compare(reference, run).max_abs_loss_diff, k_loss_bound);
}

TEST(DrillScaling, ReshardWithThePerRankSamplerSkipsOrRereadsAsTheCursorModel) {
  DrillSpec spec = small_spec();
  spec.sampler = DataSampler::per_rank;
  // Checkpoint at 20: each rank read 80 of its shard. At dp 4 it resumes at 80 x 4 = 320
  // instead of 160: 160 samples skipped. At dp 1: at 80, re-reading 80 samples.
  const TrainedRun wider = train(spec, {{25}, std::nullopt, Layout{4, 2, 1, 1}});
  EXPECT_EQ(wider.samples_skipped, 160.0);
  EXPECT_EQ(wider.samples_duplicated, 0.0);
  EXPECT_EQ(wider.cursor_model_skipped, wider.samples_skipped);
  EXPECT_EQ(wider.cursor_model_duplicated, wider.samples_duplicated);
  // A second failure before the next checkpoint: back to the checkpoint of step 20 (taken
  // at dp 2), resumed at dp 4 again: the same skip.
  const TrainedRun twice = train(spec, {{25, 28}, std::nullopt, Layout{4, 2, 1, 1}});
  EXPECT_EQ(twice.restarts, 2);
  EXPECT_EQ(twice.samples_skipped, 160.0);
  EXPECT_EQ(twice.cursor_model_skipped, twice.samples_skipped);
  EXPECT_EQ(twice.cursor_model_duplicated, twice.samples_duplicated);
  const TrainedRun narrower = train(spec, {{25}, std::nullopt, Layout{1, 2, 4, 1}});
  EXPECT_EQ(narrower.samples_duplicated, 80.0);
  EXPECT_EQ(narrower.cursor_model_duplicated, narrower.samples_duplicated);
  EXPECT_EQ(narrower.cursor_model_skipped, narrower.samples_skipped);
}

}  // namespace
}  // namespace trainsim::drill
