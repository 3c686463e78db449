#pragma once
// The evaluator of `trainsim sweep` and `trainsim batch`: load the point's scenario with its
// overrides, simulate one step (sim/step), keep the summary metrics (step_summary.hpp).

#include <functional>
#include <memory>

#include "sim/compute/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/sweep/point_evaluator.hpp"

namespace trainsim::sweep {

/// Builds the scenario's compute model (the CLI passes cli::scenario_compute_model).
using ComputeModelFactory = std::function<std::unique_ptr<ComputeModel>(const Scenario&)>;

/// The evaluator. Creates a SimGrid engine: call it in a fresh process (worker_pool does).
PointEvaluator step_point_evaluator(ComputeModelFactory compute_model);

}  // namespace trainsim::sweep
