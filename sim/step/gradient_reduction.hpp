#pragma once
// A stage actor's gradient reduction (stage_actor.hpp): the weight gradients reduced bucket
// by bucket as a backward produces them (Megatron-LM's overlapped reduction) or all at once
// after the last backward, on the gradient (dp x cp) groups; every simulated replica asks for
// each reduction and it starts when the last one does (ReplicaRendezvous), queued behind the
// stage's reduction before it. The step ends by waiting for them all (dp_comm).

#include <functional>
#include <optional>
#include <vector>

#include "sim/engine/comm_activity.hpp"
#include "sim/step/gradient_plans.hpp"
#include "sim/step/stage_compute.hpp"
#include "sim/step/stage_context.hpp"

namespace trainsim {

/// Whether the weight gradients of `t` are reduced as they are produced: the chunk's last
/// micro-batch's (the schedule's last through `t`'s chunk), or with Megatron FSDP every
/// micro-batch's (its gradient buffer is sharded).
bool reduces_after(const Scenario& scenario, const PipelineSchedule& schedule, int microbatches,
                   const PipelineTask& t);

class GradientReduction {
 public:
  GradientReduction(StageContext& s, StageCompute& compute) : s_(s), compute_(compute) {}

  /// `seconds` of a weight-gradient pass whose gradients are reduced bucket by bucket as the
  /// pass produces them; `share`: the part of the chunk's gradients this call produces.
  /// `attention` (the pass's attention with its CP exchange, given its share), where set,
  /// runs in each bucket's part too. Returns the compute time.
  double compute_with_buckets(const PipelineTask& t, double seconds, double share,
                              const std::function<double(double)>& attention = {});
  /// Asks for the reduction of `dense_bytes` and `expert_bytes` of gradients; `last`: of the
  /// step's last micro-batch (under HSDP the across-shards part runs then only).
  void start(double dense_bytes, double expert_bytes, bool last);
  /// The step's end: the whole stage's reduction when not overlapped, then the wait for every
  /// reduction asked for this step (dp_comm), each reported.
  void finish_step();

  /// The first reduction still in flight (started, not done), if any.
  const engine::CommActivity* first_running() const;
  /// A reduction asked for that has not started (slower replicas have not asked), if any.
  std::optional<ReplicaRendezvous::Key> awaited_start() const;

 private:
  StageContext& s_;
  StageCompute& compute_;
  std::vector<ReplicaRendezvous::Key> in_flight_;  ///< this step's reductions (world.rendezvous)
  std::vector<double> bytes_;                      ///< bytes per GPU of each reduction in in_flight_
  std::vector<GradientPlanKey> keys_;              ///< the plan of each reduction in in_flight_
};

}  // namespace trainsim
