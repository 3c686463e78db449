#include "sim/drill/run_failures.hpp"

#include <algorithm>
#include <cmath>

namespace trainsim::drill {

ReplayedFailures replay_run_failures(const RunResult& run, long long drill_steps) {
  ReplayedFailures out;
  out.run_steps = run.steps_completed;
  if (run.steps_completed <= 0 || run.useful_time_s <= 0) return out;
  const double step_s = run.useful_time_s / static_cast<double>(run.steps_completed);
  const double scale = static_cast<double>(drill_steps) / static_cast<double>(run.steps_completed);
  for (const InterruptionRecord& i : run.interruptions) {
    if (i.planned) continue;
    ++out.run_failures;
    long long saved = 0;
    for (const CheckpointRecord& c : run.checkpoints)
      if (c.committed && c.end_s <= i.time_s) saved = std::max(saved, c.steps);
    const auto lost_steps = static_cast<long long>(std::floor(i.lost_work_s / step_s + 1e-9));
    const long long hit = saved + lost_steps + 1;
    const auto drill_step = static_cast<long long>(std::ceil(static_cast<double>(hit) * scale));
    out.fail_at.push_back(std::clamp<long long>(drill_step, 1, drill_steps));
  }
  std::sort(out.fail_at.begin(), out.fail_at.end());
  out.fail_at.erase(std::unique(out.fail_at.begin(), out.fail_at.end()), out.fail_at.end());
  if (run.checkpoint_interval_s > 0)
    out.checkpoint_every = std::max<long long>(1, std::llround(run.checkpoint_interval_s / step_s * scale));
  return out;
}

}  // namespace trainsim::drill
