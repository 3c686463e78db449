#include "sim/sweep/step_point_evaluator.hpp"

#include "sim/run/run_in_processes.hpp"
#include "sim/scenario/accuracy_caveats.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/step/step_simulation.hpp"
#include "sim/sweep/step_summary.hpp"

namespace trainsim::sweep {

PointEvaluator step_point_evaluator(ComputeModelFactory compute_model) {
  return [make = std::move(compute_model)](const SweepPoint& point) {
    const Scenario s = load_scenario(point.scenario_path, point.overrides);
    const auto compute = make(s);
    // The run first: its simulations run in child processes (one SimGrid engine each).
    const std::optional<RunResult> run = simulate_run_if_any(s, *compute);
    PointResult r = simulated_point(simulate_step(s, *compute), run, static_cast<double>(s.gpu_memory_bytes()));
    r.validation_family = validation_family(s).id;
    r.caveats = scenario_caveat(s).value_or("");
    return r;
  };
}

}  // namespace trainsim::sweep
