#pragma once
// What the parts of one stage actor share (stage_actor.hpp): the step's world, which stage
// and replica the actor plays, its GPU account, its clock, the step it is in, and the
// collective calls more than one part makes (a gradient-group plan, a replica rendezvous
// waited for). Each part keeps its own state; this holds only what is the actor's as a whole.

#include <string>
#include <vector>

#include "sim/engine/collective.hpp"
#include "sim/engine/comm_activity.hpp"
#include "sim/schedule/pipeline_task.hpp"
#include "sim/step/gpu_account.hpp"
#include "sim/step/gradient_plans.hpp"
#include "sim/step/lazy_clock.hpp"
#include "sim/step/replica_rendezvous.hpp"
#include "sim/step/step_observer.hpp"
#include "sim/step/step_world.hpp"

namespace trainsim {

/// A pass's work per second of its compute: its FLOPs and HBM bytes over its compute time.
struct WorkRate {
  double flops_per_s = 0;
  double bytes_per_s = 0;
};

/// The FLOPs and HBM bytes a pass executes per second of its compute: its records' rate.
WorkRate work_rate(const PassCost& pass);

/// The bus bytes of `op` of `bytes` on `ranks` ranks (nothing on one).
double bus_bytes(engine::CollectiveOp op, double bytes, int ranks);

struct StageContext {
  /// Stage `stage` of the representative of world.simulated.classes[replica_class] (its TP
  /// rank 0), accounted in world.accounts[account].
  StageContext(StepWorld& world, int stage, int replica_class, int account);

  StepWorld& w;
  int stage;
  const ReplicaClass& replica_class;  ///< the replicas this actor's replica stands for
  int replica;
  int account_index;
  int rank;
  int leader_rank;  ///< replica 0's rank of this stage: the gradient-group plans' key
  const StageCosts& costs;
  LazyClock clock;  ///< this actor's time, its sleeps run lazily
  int step = 0;
  double step_start = 0;
  int rendezvous_index = 0;  ///< gradient-group collectives asked for so far this step

  GpuAccount& account() { return w.accounts[static_cast<size_t>(account_index)]; }
  /// Reports an activity of this actor's GPU to the step's observer, if any.
  void observe(ActivityStream stream, std::string kind, const PipelineTask* t, double start, double end, double bytes,
               double flops, ActivityComm comm = {}, double hbm_bytes = 0);

  /// The key of this step's next gradient-group collective of this stage.
  ReplicaRendezvous::Key next_rendezvous() { return {-1, stage, step, rendezvous_index++}; }
  /// Waits until every collective of `keys` has started; returns the time waited (for the
  /// slower replicas: their straggler cost to this one), charged to the replica whose ask
  /// started the last of them.
  double wait_all_started(const std::vector<ReplicaRendezvous::Key>& keys);

  /// The ranks of this GPU's dense (or, with `experts`, expert) gradient group in `scope`.
  int gradient_group_size(GradientScope scope = GradientScope::whole, bool experts = false) const;
  GradientScope gather_scope() const { return trainsim::gather_scope(w.scenario.parallel); }
  /// Starts the gradient-group plan of `key` (once `after` has completed): as prepared with
  /// the step's others, or with every leg (GradientPlans).
  engine::CommActivity start_gradient_plan(const GradientPlanKey& key, const std::string& name,
                                           engine::QueuedAfter after = {});
  /// The collectives of a gradient-group collective of this rank, as an activity reports them.
  std::vector<ActivityCollective> group_collectives(engine::CollectiveOp op, double bytes, double expert_bytes,
                                                    GradientScope scope) const;
};

}  // namespace trainsim
