#include "sim/run/run_event_budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/core/error.hpp"
#include "sim/run/run_limits.hpp"
#include "sim/run/run_simulation.hpp"

namespace trainsim {

namespace {

std::string count_text(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

void check_run_events(const Scenario& s, const SizeCosts& c) {
  if (!s.run.simulates_run() || !(c.step_time_s > 0)) return;
  // The run's length: its duration, or at least the failure-free time of its step target.
  const double horizon_s =
      s.run.duration_s > 0
          ? s.run.duration_s
          : std::min(k_max_run_duration_s, static_cast<double>(s.run.train_steps) * c.step_time_s);
  const double interval_s = checkpoint_interval_for(s, c, s.cluster.nodes);
  double checkpoints = 0;
  if (interval_s > 0) {
    // As the run does: whole steps between checkpoints, at least one, then the stall.
    const double steps = std::max(1.0, std::round(interval_s / c.step_time_s));
    const double stall_s = s.checkpoint.mode == CheckpointMode::sync ? c.checkpoint.write_s : c.checkpoint.snapshot_s;
    checkpoints = horizon_s / (steps * c.step_time_s + stall_s);
  }
  const double mtti_s = s.mtti_s(s.cluster.nodes);
  const double interruptions = mtti_s > 0 ? horizon_s / mtti_s : 0;
  const double stops =
      s.failures.maintenance_interval_s > 0 ? horizon_s / s.failures.maintenance_interval_s : 0;
  // Stragglers: one per straggler_mtbf per GPU of the job while it trains (at most the horizon).
  const double stragglers =
      s.variations.straggler_mtbf_s > 0 ? horizon_s * s.cluster.total_gpus() / s.variations.straggler_mtbf_s : 0;
  const double events = checkpoints + interruptions + stops + stragglers;
  if (events <= k_max_run_events) return;
  const std::string what = count_text(checkpoints) + " checkpoints, " + count_text(interruptions) + " interruptions, " +
                           count_text(stops) + " maintenance stops and " + count_text(stragglers) + " stragglers";
  if (stragglers >= checkpoints && stragglers >= interruptions && stragglers >= stops)
    throw InputError(s.source, "variations.straggler_mtbf", count_text(s.variations.straggler_mtbf_s) + "s",
                     "the run would simulate about " + what +
                         ": at most 1e+06 events are simulated (about 20 s), so that a run stays bounded in time");
  const std::string rule = "the run would simulate about " + what +
                           ": at most 1e+06 events are simulated (about 20 s), so that a run stays bounded in "
                           "time; shorten it or checkpoint less often";
  if (checkpoints >= interruptions && checkpoints >= stops) {
    const std::string interval = s.checkpoint.interval_steps > 0
                                     ? std::to_string(s.checkpoint.interval_steps) + "steps"
                                     : (s.checkpoint.automatic ? std::string("auto") : count_text(interval_s) + "s");
    throw InputError(s.source, "checkpoint.interval", interval, rule);
  }
  const std::string key = s.run.duration_s > 0 ? "run.duration" : "run.train_steps";
  const std::string value =
      s.run.duration_s > 0 ? count_text(s.run.duration_s) + "s" : std::to_string(s.run.train_steps);
  throw InputError(s.source, key, value, rule);
}

}  // namespace trainsim
