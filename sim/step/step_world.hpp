#pragma once
// Everything the stage actors of one step simulation share (stage_actor.hpp): read-only
// inputs, plus the transfer board, the collective durations measured so far, the step's end
// barrier and one GPU account per actor. step_simulation.cpp owns it for the engine's run.

#include <simgrid/s4u/Barrier.hpp>

#include <map>
#include <tuple>
#include <vector>

#include "sim/engine/comm_activity.hpp"
#include "sim/engine/platform.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/schedule/pipeline_schedule.hpp"
#include "sim/step/gpu_account.hpp"
#include "sim/step/gradient_plans.hpp"
#include "sim/step/replica_rendezvous.hpp"
#include "sim/step/simulated_scope.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_simulation.hpp"
#include "sim/step/transfer_board.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim {

struct StepWorld {
  StepWorld(const Scenario& s, const StepOptions& o, const StepCosts& c, const PipelineSchedule& sch,
            const engine::Platform& p, const RankMapping& m, const SimulatedScope& sc, const GradientPlans& g)
      : scenario(s), options(o), costs(c), schedule(sch), platform(p), mapping(m), simulated(sc), gradient_plans(g) {}

  const Scenario& scenario;
  const StepOptions& options;
  const StepCosts& costs;
  const PipelineSchedule& schedule;
  const engine::Platform& platform;
  const RankMapping& mapping;
  const SimulatedScope simulated;
  const GradientPlans& gradient_plans;  ///< prepared together, or empty (every leg runs)
  TransferBoard board;
  ReplicaRendezvous rendezvous;  ///< collectives of several actors, started when every one asked
  /// (group kind, op, bytes, the stage's rank near a slow NIC or -1) -> seconds
  std::map<std::tuple<int, int, double, int>, double> duration_cache;
  /// Per gradient-plan owner (a stage's replica-0 rank): the stage's last gradient reduction,
  /// which the next queues behind (GradientReduction::start).
  std::map<int, engine::CommActivity> reduction_queue;
  /// With symmetry not reduced: per rank, whether its TP group's collectives may reuse the
  /// cache (isolated_tp_groups.hpp); empty: none may.
  std::vector<bool> isolated_tp;
  simgrid::s4u::BarrierPtr step_end;
  std::vector<GpuAccount> accounts;  ///< one per stage actor
  std::vector<double> step_ends;     ///< each step's end, seconds (recorded at step_end)
  /// A neighbour job's world (variations.neighbour): the job it plays beside, whose steps it
  /// outlasts; its actors agree at `decided`, after each step's end, on `another_step`.
  const StepWorld* foreground = nullptr;
  simgrid::s4u::BarrierPtr decided;
  bool another_step = false;
};

}  // namespace trainsim
