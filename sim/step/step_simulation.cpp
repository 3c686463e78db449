#include "sim/step/step_simulation.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/schedule/pipeline_schedule.hpp"
#include "sim/step/account_summary.hpp"
#include "sim/step/gradient_plans.hpp"
#include "sim/step/link_sampler.hpp"
#include "sim/step/simulated_scope.hpp"
#include "sim/step/stage_actor.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_world.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/slow_parts.hpp"

namespace trainsim {

namespace sg4 = simgrid::s4u;

StepResult simulate_step(const Scenario& scenario, const ComputeModel& compute, const StepOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  // The [variations]' slow parts, drawn once: the platform, the replica classes and the
  // summary read them from the cluster.
  Scenario s = scenario;
  s.cluster = with_slow_parts(s.cluster, s.variations, s.run.seed);
  const auto schedule = make_pipeline_schedule(s.parallel.schedule, s.parallel.microbatch_group);
  const StepCosts costs = build_step_costs(s, compute, schedule->defers_weight_gradients());
  engine::Simulation simulation;
  const RankMapping mapping(s.parallel, s.cluster);
  const SimulatedScope scope = simulated_scope(s, mapping, options);
  // Link samples average over every link of a class: those need the whole platform.
  const bool samples_links = options.observer && options.observer->wants_link_samples();
  const bool sparse = options.sparse_platform && options.reduce_symmetry && !samples_links;
  // The gradient-group plans leave out their redundant legs together (gradient_plans.hpp)
  // when replica 0 alone starts them; planned before the platform exists, which then builds
  // only the endpoints of the legs they keep.
  GradientPlans gradient_plans;
  std::vector<bool> gradient_endpoints;
  if (options.reduce_gradient_legs && options.reduce_symmetry && !samples_links) {
    const engine::Platform planning = engine::Platform::without_simgrid(s.cluster);
    gradient_plans = GradientPlans(planning, gradient_plan_keys(s, mapping, costs),
                                   {mapping, s.parallel, scope.one_transfer_per_tp_group},
                                   foreign_links(s, mapping, scope, planning), &gradient_endpoints);
  }
  const engine::Platform platform(
      s.cluster, sparse ? touched_endpoints(s, mapping, scope, gradient_plans.empty() ? nullptr : &gradient_endpoints)
                        : std::vector<bool>{});

  StepWorld world{s, options, costs, *schedule, platform, mapping, scope, gradient_plans};
  const int actors = scope.replicas() * s.parallel.pp;
  world.step_end = sg4::Barrier::create(static_cast<unsigned>(actors));
  world.accounts.resize(static_cast<size_t>(actors));
  // Each actor's account stands for its TP group in every replica of its class.
  std::vector<int> gpus_per_account;

  int account = 0;
  for (int c = 0; c < scope.replicas(); ++c) {
    const ReplicaClass& rc = scope.classes[static_cast<size_t>(c)];
    for (int stage = 0; stage < s.parallel.pp; ++stage) {
      const int gpu = mapping.gpu_of(rank_of(mapping, rc.representative, stage));
      gpus_per_account.push_back(s.parallel.tp * static_cast<int>(rc.members.size()));
      sg4::Actor::create("stage" + std::to_string(stage) + ".r" + std::to_string(rc.representative), platform.host(gpu),
                         StageActor(world, stage, c, account++));
    }
  }
  // Link utilization for traces: 200 samples over the step's compute (a lower bound of the
  // step time, so the samples cover the step at least that densely), capped at 0.1 ms apart.
  std::optional<LinkSampler> sampler;
  if (samples_links) {
    double compute_s = 0;
    for (const StageCosts& st : costs.stages)
      for (const ChunkCosts& c : st.chunks)
        compute_s = std::max(compute_s, costs.microbatches * (c.forward.compute_s + c.backward.compute_s));
    sampler.emplace(std::max(compute_s * s.run.steps / 200.0, 1e-4), 8);
    sampler->start(platform.host(0));
  }
  simulation.run();
  if (sampler) options.observer->on_link_samples(sampler->samples());
  StepResult r = summarize_accounts(s, world.accounts, gpus_per_account, simulation.clock_s());
  r.sim_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return r;
}

}  // namespace trainsim
