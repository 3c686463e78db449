#pragma once
// The run simulation's interruptions replayed on a drill: a drill trains ~100 steps, a
// simulated run thousands, so each failure is placed at the same fraction of the run (its
// step x drill steps / run steps, rounded up), and the checkpoint interval is scaled alike:
// the drill sees the run's failure pattern, compressed, with the same share of work lost.

#include <vector>

#include "sim/run/run_result.hpp"

namespace trainsim::drill {

struct ReplayedFailures {
  std::vector<long long> fail_at;  ///< drill steps (1-based, ascending, distinct)
  long long checkpoint_every = 0;  ///< the run's interval scaled to the drill; 0: the run never checkpointed
  long long run_failures = 0;      ///< unplanned interruptions of the run
  long long run_steps = 0;         ///< steps the run completed
};

/// The step each unplanned interruption of `run` hit: the steps of the last checkpoint
/// committed before it plus the work it lost over the mean step time (useful time / steps),
/// plus one; mapped onto `drill_steps`.
ReplayedFailures replay_run_failures(const RunResult& run, long long drill_steps);

}  // namespace trainsim::drill
