#pragma once
// A step's world (sim/step/step_world.hpp) without its stage actors, for the tests of one
// part of a stage actor (stage_context.hpp's parts): the scenario's costs, schedule,
// platform, mapping and scope as simulate_step makes them, and one SimGrid actor on stage
// `stage`'s GPU that runs the test's body. Runs in a forked child (one engine per process).

#include <simgrid/s4u/Actor.hpp>

#include <functional>
#include <vector>

#include "sim/compute/roofline_compute_model.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/schedule/pipeline_schedule.hpp"
#include "sim/step/gradient_plans.hpp"
#include "sim/step/simulated_scope.hpp"
#include "sim/step/stage_context.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_observer.hpp"
#include "sim/step/step_world.hpp"
#include "tests/engine/isolated_run.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim::testing {

/// The activities a part reports, kept.
class KeptRecords : public StepObserver {
 public:
  void on_activity(const ActivityRecord& r) override { records.push_back(r); }
  void on_step(int /*step*/, double /*start_s*/, double /*end_s*/) override {}
  std::vector<ActivityRecord> records;
};

/// Runs `body` as the actor of stage `stage` of the representative replica of class 0 of
/// `s`'s step (symmetry reduced, as `trainsim run`), with a StageContext of its own; returns
/// what the body returns.
inline std::vector<double> run_stage_part(const Scenario& s, int stage,
                                          const std::function<std::vector<double>(StageContext&)>& body,
                                          StepOptions options = {}) {
  return engine::test::run_isolated([&] {
    const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
    const auto schedule = make_pipeline_schedule(s.parallel);
    const StepCosts costs = build_step_costs(s, compute, schedule->defers_weight_gradients());
    engine::Simulation simulation;
    const RankMapping mapping(s.parallel, s.cluster);
    const SimulatedScope scope = simulated_scope(s, mapping, s.cluster, options);
    const GradientPlans every_leg;
    const engine::Platform platform(s.cluster, {});
    StepWorld world{s, options, costs, *schedule, platform, mapping, scope, every_leg};
    world.accounts.resize(static_cast<size_t>(scope.replicas() * s.parallel.pp));
    std::vector<double> out;
    const int gpu = mapping.gpu_of(rank_of(mapping, scope.classes[0].representative, stage));
    simgrid::s4u::Actor::create("part", platform.host(gpu), [&] {
      StageContext context(world, stage, 0, stage);
      out = body(context);
    });
    simulation.run();
    return out;
  });
}

}  // namespace trainsim::testing
