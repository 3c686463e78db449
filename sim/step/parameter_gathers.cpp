// StageActor's ZeRO parameter gathers (parameter_gathers.hpp).
#include "sim/step/parameter_gathers.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

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
void ParameterGathers::start_step() {
  gather_shares_.clear();
  gather_buckets_.clear();
  param_gather_.reset();
  if (!s_.w.scenario.parallel.overlap_param_gather || !gathers_updated_parameters()) return;
  const std::vector<ReductionBucket> buckets =
      parameter_gather_buckets(s_.costs, s_.w.scenario.training.dp_bucket_bytes);
  if (buckets.size() > 1)
    for (const ReductionBucket& b : buckets) gather_shares_.push_back(b.compute_share);
  gather_buckets_.assign(buckets.begin(), buckets.end());
  dispatch();
}

// Asks for the gather of the next bucket, if any; the last replica to ask starts it.
void ParameterGathers::dispatch() {
  if (gather_buckets_.empty()) return;
  gathering_ = gather_buckets_.front();
  gather_buckets_.pop_front();
  s_.clock.settle();
  param_gather_ = s_.next_rendezvous();
  s_.w.rendezvous.arrive(
      *param_gather_, s_.w.simulated.replicas(),
      [&] {
        return s_.start_gradient_plan({s_.leader_rank, CollectiveOp::all_gather, gathering_.dense_bytes,
                                       gathering_.expert_bytes, s_.gather_scope(), false},
                                      "zero");
      },
      s_.replica);
  s_.account().zero_bytes += bus_bytes(CollectiveOp::all_gather, gathering_.dense_bytes + gathering_.expert_bytes,
                                       s_.gradient_group_size(s_.gather_scope()));
}

// The gather asked for, once started (null before, or with none asked for).
const CommActivity* ParameterGathers::started() const {
  return param_gather_ ? s_.w.rendezvous.started(*param_gather_) : nullptr;
}

// Waits for the gather asked for (zero_comm, the wait for slower replicas' asks included).
void ParameterGathers::finish_overlapped() {
  if (!param_gather_) return;
  const ReplicaRendezvous::Key key = *param_gather_;
  s_.clock.settle();
  const double asked = s_.clock.now();
  s_.wait_all_started({key});
  const CommActivity gather = *s_.w.rendezvous.started(key);
  gather.wait();
  s_.w.rendezvous.leave(key);
  param_gather_.reset();
  s_.account().zero_comm += s_.clock.now() - asked;
  s_.account().add_comm_interval(gather.start_s(), gather.end_s());
  s_.observe(ActivityStream::dp_comm, "zero_allgather", nullptr, gather.start_s(), gather.end_s(),
             gathering_.dense_bytes + gathering_.expert_bytes, 0,
             {s_.group_collectives(CollectiveOp::all_gather, gathering_.dense_bytes, gathering_.expert_bytes,
                                   s_.gather_scope())});
}

// The first forward pass of a step that gathers its parameters bucket by bucket: before each
// bucket's part of `seconds` and of `attention` (where set), the wait for its gather
// (zero_comm) and the ask for the next one's. Called with a compute record open; leaves one
// open.
double ParameterGathers::compute_with_gathers(const char* kind, const PipelineTask& t, double seconds, WorkRate rate,
                                              const std::function<double(double)>& attention) {
  double spent = 0;
  const std::vector<double> shares = std::move(gather_shares_);
  gather_shares_.clear();
  for (const double part : shares) {
    if (param_gather_) {
      compute_.close_record();
      finish_overlapped();
      dispatch();
      compute_.open_record(kind, t, rate);
    }
    spent += compute_.compute(seconds * part);
    if (attention) spent += attention(part);
  }
  return spent;
}

bool ParameterGathers::gathers_updated_parameters() const {
  const ParallelSpec& par = s_.w.scenario.parallel;
  return par.zero >= 1 && par.zero < 3 && par.gradient_group() > 1;
}

// ZeRO-3 / FSDP (Rajbhandari et al. 2020 §5.3; PyTorch FSDP): with `gather`, each unit's
// parameters are all-gathered before it computes, zero3_prefetch units ahead; waiting for one
// is zero_comm. With `with_buckets`, each unit's gradients are reduced as it ends. Each unit's
// compute is reported as a `kind` record of `rate` x its seconds.
double ParameterGathers::compute_by_units(const char* kind, const PipelineTask& t, double seconds, bool with_buckets,
                                          WorkRate rate, bool gather) {
  const int units = s_.costs.zero3_units[static_cast<size_t>(t.chunk)];
  const int prefetch = s_.w.scenario.parallel.zero3_prefetch;
  const double unit_bytes = s_.costs.zero3_unit_bytes + s_.costs.zero3_unit_expert_bytes;
  int issued = 0;
  double spent = 0;
  // Each unit's gather starts when the last simulated replica asks for it (ReplicaRendezvous):
  // an all-gather over the replicas runs once, when all of them have joined.
  const auto issue_until = [&](int count) {
    for (; gather && issued < std::min(units, count); ++issued) {
      s_.clock.settle();
      unit_gathers_.push_back(s_.next_rendezvous());
      s_.w.rendezvous.arrive(
          unit_gathers_.back(), s_.w.simulated.replicas(),
          [&] {
            return s_.start_gradient_plan({s_.leader_rank, CollectiveOp::all_gather, s_.costs.zero3_unit_bytes,
                                           s_.costs.zero3_unit_expert_bytes, s_.gather_scope(), false},
                                          "zero3");
          },
          s_.replica);
      s_.account().zero_bytes +=
          bus_bytes(CollectiveOp::all_gather, s_.costs.zero3_unit_bytes, s_.gradient_group_size(s_.gather_scope())) +
          bus_bytes(CollectiveOp::all_gather, s_.costs.zero3_unit_expert_bytes,
                    s_.gradient_group_size(s_.gather_scope(), true));
    }
  };
  for (int u = 0; u < units; ++u) {
    issue_until(u + 1);  // this unit's, if no earlier prefetch started it
    if (!gather) {
      compute_.open_record(kind, t, rate);
      spent += reduction_.compute_with_buckets(t, seconds / units, 1.0 / units);
      compute_.close_record();
      continue;
    }
    s_.clock.settle();
    const double asked = s_.clock.now();
    const ReplicaRendezvous::Key key = unit_gathers_.front();
    s_.wait_all_started({key});
    const CommActivity unit = *s_.w.rendezvous.started(key);
    unit.wait();
    s_.w.rendezvous.leave(key);
    unit_gathers_.pop_front();
    s_.account().zero_comm += s_.clock.now() - asked;
    s_.account().add_comm_interval(unit.start_s(), unit.end_s());
    s_.observe(ActivityStream::dp_comm, "zero3_allgather", &t, unit.start_s(), unit.end_s(), unit_bytes, 0,
               {s_.group_collectives(CollectiveOp::all_gather, s_.costs.zero3_unit_bytes,
                                     s_.costs.zero3_unit_expert_bytes, s_.gather_scope())});
    issue_until(u + 1 + prefetch);  // while this unit computes, the next ones are gathered
    compute_.open_record(kind, t, rate);
    spent += with_buckets ? reduction_.compute_with_buckets(t, seconds / units, 1.0 / units)
                          : compute_.compute(seconds / units);
    compute_.close_record();
  }
  return spent;
}

// After the update, ZeRO-1/2 all-gather the updated parameters (ZeRO-3 keeps them sharded).
void ParameterGathers::gather_updated() {
  if (s_.w.scenario.parallel.overlap_param_gather || !gathers_updated_parameters()) return;
  const double bytes = s_.costs.dense_weight_bytes + s_.costs.expert_weight_bytes;
  s_.clock.settle();
  const double start = s_.clock.now();
  // Every replica's update ends before its parameters are gathered: the slowest one starts it.
  const ReplicaRendezvous::Key key = s_.next_rendezvous();
  s_.w.rendezvous.arrive(
      key, s_.w.simulated.replicas(),
      [&] {
        return s_.start_gradient_plan({s_.leader_rank, CollectiveOp::all_gather, s_.costs.dense_weight_bytes,
                                       s_.costs.expert_weight_bytes, s_.gather_scope(), false},
                                      "zero");
      },
      s_.replica);
  s_.wait_all_started({key});
  const CommActivity gather = *s_.w.rendezvous.started(key);
  gather.wait();
  s_.w.rendezvous.leave(key);
  s_.account().zero_comm += s_.clock.now() - start;
  s_.account().zero_bytes += bus_bytes(CollectiveOp::all_gather, bytes, s_.gradient_group_size(s_.gather_scope()));
  s_.account().add_comm_interval(gather.start_s(), gather.end_s());
  s_.observe(ActivityStream::dp_comm, "zero_allgather", nullptr, gather.start_s(), gather.end_s(), bytes, 0,
             {s_.group_collectives(CollectiveOp::all_gather, s_.costs.dense_weight_bytes, s_.costs.expert_weight_bytes,
                                   s_.gather_scope())});
}

const CommActivity* ParameterGathers::running() const {
  const CommActivity* gather = started();
  return gather && !gather->done() ? gather : nullptr;
}

const CommActivity* ParameterGathers::first_unit_running() const {
  for (const ReplicaRendezvous::Key& key : unit_gathers_)
    if (const CommActivity* a = s_.w.rendezvous.started(key); a && !a->done()) return a;
  return nullptr;
}

std::optional<ReplicaRendezvous::Key> ParameterGathers::awaited_start() const {
  for (const ReplicaRendezvous::Key& key : unit_gathers_)
    if (!s_.w.rendezvous.started(key)) return key;
  if (param_gather_ && !s_.w.rendezvous.started(*param_gather_)) return param_gather_;
  return std::nullopt;
}

void ParameterGathers::finish_forward() {
  while (param_gather_) {  // what compute_with_gathers did not wait for (a pass not run by compute_pass)
    finish_overlapped();
    dispatch();
  }
}

}  // namespace trainsim
