#pragma once
// A training run over hours to weeks on SimGrid: steps, checkpoints (sync, or async behind a
// snapshot), node failures drawn per node with a cause each, planned maintenance, detection
// and restart from the last committed checkpoint, a spare pool with repairs, and the elastic
// policy when no spare is left (wait, or shrink data parallelism and grow back). Creates the
// process' SimGrid engine: call once per process (run_in_processes.hpp does).

#include <iosfwd>
#include <optional>

#include "sim/run/run_result.hpp"
#include "sim/run/size_costs.hpp"
#include "sim/scenario/scenario.hpp"

namespace trainsim {

struct RunOutcome {
  std::optional<RunResult> result;  ///< the run, or nothing if it reached a size not in the table
  int missing_dp = 0;               ///< that size: simulate it, add it to the table, run again
};

/// Simulates training for `scenario.run.duration_s`, or until `run.train_steps` are trained
/// (whichever comes first; a run with a step target alone stops after 100 simulated years at
/// the latest, short of it). `costs` must hold the scenario's dp. With `progress` (a
/// terminal), a line shows the share of the run simulated, redrawn a few times a second.
RunOutcome simulate_run(const Scenario& scenario, const SizeCostTable& costs, std::ostream* progress = nullptr);

/// The training time between checkpoints of `scenario` at `costs`: the given interval (a step
/// count times the step time), or
/// Daly's for the training stall a checkpoint costs (sync: the write; async: the snapshot,
/// but no shorter than the write behind it).
double checkpoint_interval_for(const Scenario& scenario, const SizeCosts& costs, int nodes);

}  // namespace trainsim
