#pragma once
// The run-level simulation from a command's point of view. SimGrid allows one engine per
// process and a forked child inherits its parent's: so the step at each data-parallel size
// the run reaches (simulate_step), that size's checkpoint storage (simulate_checkpoint_storage)
// and the run itself (simulate_run) each run in a child process of their own. A run that
// reaches a size not simulated yet (elastic shrink) is simulated again with it added: the
// run is seeded, so the repeat follows the same course up to that point.

#include <iosfwd>
#include <optional>

#include "sim/compute/compute_model.hpp"
#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// Simulates the run (simulate_run). Call from a process that has not simulated yet.
/// `progress`: a terminal for the run's progress line (nullptr: none). Throws InputError when
/// the run would simulate too many events (run_event_budget.hpp).
RunResult simulate_run_in_processes(const Scenario& s, const ComputeModel& compute,
                                    std::ostream* progress = nullptr);

/// The run if the scenario asks for one (Scenario::run.simulates_run()), else nothing.
std::optional<RunResult> simulate_run_if_any(const Scenario& s, const ComputeModel& compute,
                                             std::ostream* progress = nullptr);

}  // namespace trainsim
