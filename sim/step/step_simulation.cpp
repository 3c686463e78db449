#include "sim/step/step_simulation.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/schedule/pipeline_schedule.hpp"
#include "sim/step/account_summary.hpp"
#include "sim/step/gradient_plans.hpp"
#include "sim/step/isolated_tp_groups.hpp"
#include "sim/step/link_sampler.hpp"
#include "sim/step/simulated_scope.hpp"
#include "sim/step/stage_actor.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_world.hpp"
#include "topologies/neighbour_placement.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/slow_parts.hpp"

namespace trainsim {

namespace sg4 = simgrid::s4u;

namespace {

// Each stage actor of `world`'s simulated replicas, on its GPU; returns the GPUs each actor's
// account stands for (its TP group in every replica of its class).
std::vector<int> create_stage_actors(StepWorld& world, const std::string& job) {
  const Scenario& s = world.scenario;
  const SimulatedScope& scope = world.simulated;
  const int actors = scope.replicas() * s.parallel.pp;
  world.step_end = sg4::Barrier::create(static_cast<unsigned>(actors));
  world.accounts.resize(static_cast<size_t>(actors));
  std::vector<int> gpus_per_account;
  int account = 0;
  for (int c = 0; c < scope.replicas(); ++c) {
    const ReplicaClass& rc = scope.classes[static_cast<size_t>(c)];
    for (int stage = 0; stage < s.parallel.pp; ++stage) {
      const int gpu = world.mapping.gpu_of(rank_of(world.mapping, rc.representative, stage));
      gpus_per_account.push_back(s.parallel.tp * static_cast<int>(rc.members.size()));
      // The actor's parts refer to one another: it stays where it is made, the engine's
      // actor holds it.
      auto actor = std::make_shared<StageActor>(world, stage, c, account++);
      sg4::Actor::create(job + "stage" + std::to_string(stage) + ".r" + std::to_string(rc.representative),
                         world.platform.host(gpu), [actor] { (*actor)(); });
    }
  }
  return gpus_per_account;
}

// Link utilization for traces: 200 samples over the step's compute (a lower bound of the
// step time, so the samples cover the step at least that densely), capped at 0.1 ms apart.
// Started in place: its actor samples into it.
void start_link_sampler(std::optional<LinkSampler>& sampler, const Scenario& s, const StepCosts& costs,
                        const engine::Platform& platform) {
  double compute_s = 0;
  for (const StageCosts& st : costs.stages)
    for (const ChunkCosts& c : st.chunks)
      compute_s = std::max(compute_s, costs.microbatches * (c.forward.compute_s + c.backward.compute_s));
  sampler.emplace(std::max(compute_s * s.run.steps / 200.0, 1e-4), 8);
  sampler->start(platform.host(0));
}

// With symmetry not reduced and no link samples taken: per job (`worlds`, on one platform),
// the TP groups that may reuse collective durations (isolated_tp_groups.hpp).
void find_isolated_tp_groups(const std::vector<StepWorld*>& worlds, const StepOptions& options, bool samples_links) {
  if (options.reduce_symmetry || !options.reuse_isolated_tp || samples_links) return;
  std::vector<bool> links;
  for (const StepWorld* w : worlds) mark_links_beyond_tp(w->scenario, w->mapping, w->platform, links);
  for (StepWorld* w : worlds) w->isolated_tp = isolated_tp_groups(w->mapping, w->platform, links);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The job's step with its neighbour's (variations.neighbour) played beside it on the nodes
// place_neighbour gives each, one platform for both. Both reduce symmetry as alone, but
// every gradient leg runs and the whole platform is built: the other job's traffic loads
// links that the leg reduction and the sparse platform take to be the job's alone.
StepResult simulate_beside_neighbour(const Scenario& s, const ComputeModel& compute, const StepOptions& options,
                                     std::chrono::steady_clock::time_point wall_start) {
  const Scenario& n = *s.neighbour;
  const NeighbourNodes nodes = place_neighbour(s.cluster.nodes, n.cluster.nodes, s.variations.neighbour_placement,
                                               s.cluster.physical_domain_gpus() / s.cluster.gpus_per_node);
  // The shared platform, its uplinks and spines down (ids of its own switches: with_slow_parts)
  // and the job's slow GPUs and NICs (its own ranks' and nodes' ids: the replica classes read
  // them so) where its nodes lie on it.
  ClusterSpec both = s.fabric();
  const auto placed = [&](int id, int per_node) {
    return nodes.job[static_cast<size_t>(id / per_node)] * per_node + id % per_node;
  };
  for (int& gpu : both.slow_gpus) gpu = placed(gpu, s.cluster.gpus_per_node);
  for (int& nic : both.slow_nics) nic = placed(nic, s.cluster.nics_per_node);
  const auto schedule = make_pipeline_schedule(s.parallel);
  const auto their_schedule = make_pipeline_schedule(n.parallel);
  const StepCosts costs = build_step_costs(s, compute, schedule->splits_weight_gradients());
  const StepCosts their_costs = build_step_costs(n, compute, their_schedule->splits_weight_gradients());
  engine::Simulation simulation;
  const RankMapping mapping(s.parallel, s.cluster, nodes.job);
  const RankMapping their_mapping(n.parallel, n.cluster, nodes.neighbour);
  StepOptions theirs = options;
  theirs.observer = nullptr;  // the traces are the job's
  const GradientPlans every_leg;
  const engine::Platform platform(both, {});
  StepWorld world{s,        options, costs, *schedule, platform, mapping, simulated_scope(s, mapping, both, options),
                  every_leg};
  StepWorld beside{n,
                   theirs,
                   their_costs,
                   *their_schedule,
                   platform,
                   their_mapping,
                   simulated_scope(n, their_mapping, both, theirs),
                   every_leg};
  beside.foreground = &world;
  const bool samples_links = options.observer && options.observer->wants_link_samples();
  find_isolated_tp_groups({&world, &beside}, options, samples_links);
  const std::vector<int> gpus_per_account = create_stage_actors(world, "");
  const std::vector<int> their_gpus_per_account = create_stage_actors(beside, "neighbour.");
  beside.decided = sg4::Barrier::create(static_cast<unsigned>(beside.accounts.size()));
  std::optional<LinkSampler> sampler;
  if (samples_links) start_link_sampler(sampler, s, costs, platform);
  simulation.run();
  if (sampler) options.observer->on_link_samples(sampler->samples());
  StepResult r = summarize_accounts(s, world.accounts, gpus_per_account, world.step_ends.back());
  Scenario counted = n;
  counted.run.steps = static_cast<int>(beside.step_ends.size());
  const StepResult t = summarize_accounts(counted, beside.accounts, their_gpus_per_account, beside.step_ends.back());
  r.neighbour = NeighbourStep{t.gpus, t.steps, t.step_time_s, t.tokens_per_s_per_gpu};
  r.sim_wall_s = seconds_since(wall_start);
  return r;
}

}  // namespace

StepResult simulate_step(const Scenario& scenario, const ComputeModel& compute, const StepOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  // The [variations]' slow parts, drawn once: the platform, the replica classes and the
  // summary read them from the cluster.
  Scenario s = scenario;
  s.cluster = with_slow_parts(s.cluster, s.variations, s.run.seed, s.fabric());
  if (s.neighbour) return simulate_beside_neighbour(s, compute, options, wall_start);
  const auto schedule = make_pipeline_schedule(s.parallel);
  const StepCosts costs = build_step_costs(s, compute, schedule->splits_weight_gradients());
  engine::Simulation simulation;
  const RankMapping mapping(s.parallel, s.cluster);
  const SimulatedScope scope = simulated_scope(s, mapping, s.cluster, options);
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
  find_isolated_tp_groups({&world}, options, samples_links);
  const std::vector<int> gpus_per_account = create_stage_actors(world, "");
  std::optional<LinkSampler> sampler;
  if (samples_links) start_link_sampler(sampler, s, costs, platform);
  simulation.run();
  if (sampler) options.observer->on_link_samples(sampler->samples());
  StepResult r = summarize_accounts(s, world.accounts, gpus_per_account, simulation.clock_s());
  r.sim_wall_s = seconds_since(wall_start);
  return r;
}

}  // namespace trainsim
