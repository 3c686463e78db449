// StageActor's overlapped parameter gather (parallel.overlap_param_gather): the all-gather of
// the last update's parameters, beside the step's first forward pass.
#include <string>
#include <utility>
#include <vector>

#include "sim/step/stage_actor.hpp"

namespace trainsim {

using engine::CollectiveOp;
using engine::CommActivity;

// overlap_param_gather: the all-gather of the last update's parameters runs beside this
// step's first forward pass, which waits for it at its end (Megatron-Core issues the
// buckets' gathers at the start of the forward and each layer waits for its own: the
// first forward pass needs them all). One step in the steady state: the gather the
// previous step's update left.
//
// A stage of one model chunk whose weights fill several buckets gathers them bucket by bucket
// (parameter_gather_buckets): the first bucket's gather before the forward, and the first
// forward pass waits for each bucket's before the compute it feeds and then dispatches the
// next one's (compute_with_gathers). Otherwise the whole gather runs beside the first forward.
//
// Every simulated replica asks for each bucket's gather and waits for it, as each does for
// its gradient reductions: the gather is one collective of the gradient group, started when
// its last member asks (ReplicaRendezvous). So under --full every replica's first forward
// waits as the one replica simulated with symmetry reduced does
// (StepSimulation.ReducedEqualsFullSimulationGathersByBucket).
void StageActor::start_overlapped_parameter_gather() {
  gather_shares_.clear();
  gather_buckets_.clear();
  param_gather_.reset();
  if (!w_.scenario.parallel.overlap_param_gather || !gathers_updated_parameters()) return;
  const std::vector<ReductionBucket> buckets = parameter_gather_buckets(costs_, w_.scenario.training.dp_bucket_bytes);
  if (buckets.size() > 1)
    for (const ReductionBucket& b : buckets) gather_shares_.push_back(b.compute_share);
  gather_buckets_.assign(buckets.begin(), buckets.end());
  dispatch_parameter_gather();
}

// Asks for the gather of the next bucket, if any; the last replica to ask starts it.
void StageActor::dispatch_parameter_gather() {
  if (gather_buckets_.empty()) return;
  gathering_ = gather_buckets_.front();
  gather_buckets_.pop_front();
  clock_.settle();
  param_gather_ = next_rendezvous();
  w_.rendezvous.arrive(
      *param_gather_, w_.simulated.replicas(),
      [&] {
        return start_gradient_plan({leader_rank_, CollectiveOp::all_gather, gathering_.dense_bytes,
                                    gathering_.expert_bytes, gather_scope(), false},
                                   "zero");
      },
      replica_);
  account().zero_bytes += bus_bytes(CollectiveOp::all_gather, gathering_.dense_bytes + gathering_.expert_bytes,
                                    gradient_group_size(gather_scope()));
}

// The gather asked for, once started (null before, or with none asked for).
const CommActivity* StageActor::parameter_gather() const {
  return param_gather_ ? w_.rendezvous.started(*param_gather_) : nullptr;
}

// Waits for the gather asked for (zero_comm, the wait for slower replicas' asks included).
void StageActor::finish_overlapped_parameter_gather() {
  if (!param_gather_) return;
  const ReplicaRendezvous::Key key = *param_gather_;
  clock_.settle();
  const double asked = clock_.now();
  wait_all_started({key});
  const CommActivity gather = *w_.rendezvous.started(key);
  gather.wait();
  w_.rendezvous.leave(key);
  param_gather_.reset();
  account().zero_comm += clock_.now() - asked;
  account().add_comm_interval(gather.start_s(), gather.end_s());
  observe(ActivityStream::dp_comm, "zero_allgather", nullptr, gather.start_s(), gather.end_s(),
          gathering_.dense_bytes + gathering_.expert_bytes, 0,
          {group_collectives(CollectiveOp::all_gather, gathering_.dense_bytes, gathering_.expert_bytes,
                             gather_scope())});
}

// The first forward pass of a step that gathers its parameters bucket by bucket: before each
// bucket's part of `seconds` and of `attention` (where set), the wait for its gather
// (zero_comm) and the ask for the next one's. Called with a compute record open; leaves one
// open.
double StageActor::compute_with_gathers(const char* kind, const PipelineTask& t, double seconds, WorkRate rate,
                                        const std::function<double(double)>& attention) {
  double spent = 0;
  const std::vector<double> shares = std::move(gather_shares_);
  gather_shares_.clear();
  for (const double part : shares) {
    if (param_gather_) {
      close_record();
      finish_overlapped_parameter_gather();
      dispatch_parameter_gather();
      open_record(kind, t, rate);
    }
    spent += compute(seconds * part);
    if (attention) spent += attention(part);
  }
  return spent;
}

}  // namespace trainsim
