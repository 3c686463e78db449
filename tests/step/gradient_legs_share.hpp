#pragma once
// The share of a step's gradient-group plans' legs that it leaves out, as simulate_step
// prepares them (sim/step/gradient_plans.hpp): for tests that the leg reduction keeps working.

#include <vector>

#include "sim/compute/roofline_compute_model.hpp"
#include "sim/engine/platform.hpp"
#include "sim/schedule/pipeline_schedule.hpp"
#include "sim/step/gradient_plans.hpp"
#include "sim/step/simulated_scope.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_simulation.hpp"

namespace trainsim::testing {

inline double left_out_share(const Scenario& s) {
  const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
  const auto schedule = make_pipeline_schedule(s.parallel);
  const StepCosts costs = build_step_costs(s, compute, schedule->defers_weight_gradients());
  const RankMapping mapping(s.parallel, s.cluster);
  const SimulatedScope scope = simulated_scope(s, mapping, s.cluster, StepOptions{});
  const engine::Platform planning = engine::Platform::without_simgrid(s.cluster);
  std::vector<bool> endpoints;
  const GradientPlans plans(planning, gradient_plan_keys(s, mapping, costs),
                            {mapping, s.parallel, scope.one_transfer_per_tp_group},
                            foreign_links(s, mapping, scope, planning), &endpoints);
  return plans.legs() > 0 ? static_cast<double>(plans.left_out_legs()) / static_cast<double>(plans.legs()) : 0.0;
}

}  // namespace trainsim::testing
