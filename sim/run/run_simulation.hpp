#pragma once
// A training run over hours to weeks on SimGrid: steps (of a simulated step's time),
// checkpoints written synchronously, node failures drawn per node, detection, restart from
// the last committed checkpoint. Creates the process' SimGrid engine: call once per process
// (the CLI runs it in a forked child after the step simulation).

#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// Simulates `scenario.run.duration_s` of training with steps of `step_time_s`.
RunResult simulate_run(const Scenario& scenario, double step_time_s);

/// The interval `scenario` checkpoints at, for checkpoints of `cost_s`: Daly's when automatic.
double checkpoint_interval_for(const Scenario& scenario, double cost_s);

}  // namespace trainsim
