#pragma once
// Whether a run-level simulation stays within k_max_run_events (run_limits.hpp), checked once
// the step and the checkpoint are simulated and before the run is.

#include "sim/run/size_costs.hpp"
#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// Throws InputError(scenario, key, value, rule) when the run at `costs` (the scenario's own
/// size) is expected to simulate more than k_max_run_events: checkpoints every interval (plus
/// the stall), interruptions every MTTI, maintenance stops and stragglers, over run.duration
/// (or the failure-free time of run.train_steps). The key is variations.straggler_mtbf when
/// stragglers are most of them, checkpoint.interval when checkpoints are, else run.duration
/// (or run.train_steps).
void check_run_events(const Scenario& scenario, const SizeCosts& costs);

}  // namespace trainsim
