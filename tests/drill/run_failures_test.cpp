// The run simulation's failures replayed on a drill's steps.

#include <gtest/gtest.h>

#include "sim/drill/run_failures.hpp"

namespace trainsim::drill {
namespace {

// 1,000 steps of 1 s; checkpoints of steps 100 and 300 committed at 100 s and 300 s.
RunResult thousand_steps() {
  RunResult r;
  r.steps_completed = 1000;
  r.useful_time_s = 1000;
  r.checkpoint_interval_s = 100;
  r.checkpoints = {{99, 100, 100, 1, true, false}, {299, 300, 300, 1, true, false}, {499, 500, 500, 1, false, false}};
  return r;
}

TEST(DrillRunFailures, EachFailureAtTheSameFractionOfTheDrill) {
  RunResult r = thousand_steps();
  // 40 s after the checkpoint of step 100: it hit step 141; then one after 300 (lost 5 s: step 306),
  // a planned stop (ignored), one after the interrupted checkpoint (still back to 300: lost 250 s).
  r.interruptions = {{150, 0, "GPU", false, 40, 60, 1},
                     {310, 1, "GPU", false, 5, 60, 1},
                     {400, -1, "planned maintenance", true, 0, 60, 1},
                     {560, 2, "GPU", false, 250, 60, 1}};
  const ReplayedFailures f = replay_run_failures(r, 100);
  EXPECT_EQ(f.run_failures, 3);
  EXPECT_EQ(f.run_steps, 1000);
  EXPECT_EQ(f.fail_at, (std::vector<long long>{15, 31, 56}));
  EXPECT_EQ(f.checkpoint_every, 10);
}

TEST(DrillRunFailures, NoFailuresNoSteps) {
  const ReplayedFailures f = replay_run_failures(thousand_steps(), 100);
  EXPECT_TRUE(f.fail_at.empty());
  EXPECT_EQ(f.run_failures, 0);
  EXPECT_TRUE(replay_run_failures(RunResult{}, 100).fail_at.empty());
}

}  // namespace
}  // namespace trainsim::drill
