#include "sim/step/gradient_reduction.hpp"

namespace trainsim {

using engine::CollectiveOp;
using engine::CommActivity;

bool reduces_after(const Scenario& scenario, const PipelineSchedule& schedule, int microbatches,
                   const PipelineTask& t) {
  return t.microbatch == schedule.last_microbatch(t.chunk, microbatches) || scenario.parallel.megatron_fsdp();
}

// A weight-gradient pass whose gradients are reduced bucket by bucket as the pass produces
// them (Megatron-LM's overlapped gradient reduction). `share`: the part of the chunk's
// gradients this call produces (ZeRO-3 and Megatron FSDP run a pass unit by unit). Each
// bucket's part of `seconds`, and of `attention` (the pass's attention with its CP exchange,
// given its share) where set, runs before the bucket is issued: the last bucket's reduction
// starts when the pass has ended (reduction_buckets).
double GradientReduction::compute_with_buckets(const PipelineTask& t, double seconds, double share,
                                               const std::function<double(double)>& attention) {
  const bool reduce = s_.w.scenario.parallel.gradient_group() > 1 && s_.w.scenario.parallel.overlap_grad_reduce;
  if (!reduce) return compute_.compute(seconds) + (attention ? attention(1.0) : 0.0);
  const ReductionBuckets b = reduction_buckets(s_.costs, t.chunk, share, s_.w.scenario.training.dp_bucket_bytes);
  double spent = 0;
  const auto run = [&](double part) {
    if (part <= 0) return;
    spent += compute_.compute(seconds * part);
    if (attention) spent += attention(part);
  };
  for (const ReductionBucket& bucket : b.buckets) {
    run(bucket.compute_share);
    start(bucket.dense_bytes, bucket.expert_bytes,
          t.microbatch == s_.w.schedule.last_microbatch(t.chunk, s_.w.costs.microbatches));
    run(bucket.after_share);
  }
  return spent;
}

// Gradient reduction: an all-reduce, or with ZeRO a reduce-scatter that leaves each rank
// its shard (Rajbhandari et al. 2020 §5.1-5.2). Under HSDP the reduce-scatter runs within
// the shard group and its shard is then all-reduced across the shard groups (PyTorch FSDP
// HYBRID_SHARD; Megatron-Core's distributed optimizer instances): one plan, phase after phase;
// the across-shards part only for the step's `last` micro-batch.
//
// Every simulated replica asks for it; it starts when the last one does (ReplicaRendezvous)
// and the stage's reduction before it has ended: the buckets' reductions are issued to one
// communicator, whose collectives NCCL runs one after another on its stream (Megatron-LM
// megatron/core/distributed/param_and_grad_buffer.py @ d98e8a64, start_grad_sync: every
// bucket group's reduce-scatter or all-reduce on the same group, async, drawn as "NCCL
// Stream: --RS-- --AR--"), not side by side sharing the links.
void GradientReduction::start(double dense_bytes, double expert_bytes, bool last) {
  const ParallelSpec& par = s_.w.scenario.parallel;
  const GradientPlanKey key = reduction_key(par, s_.leader_rank, dense_bytes, expert_bytes, last);
  s_.clock.settle();
  in_flight_.push_back(s_.next_rendezvous());
  s_.w.rendezvous.arrive(
      in_flight_.back(), s_.w.simulated.replicas(),
      [&] {
        engine::QueuedAfter after;
        if (const auto queued = s_.w.reduction_queue.find(s_.leader_rank);
            queued != s_.w.reduction_queue.end() && !queued->second.done())
          after = queued->second;
        const CommActivity started = s_.start_gradient_plan(key, "dp", after);
        s_.w.reduction_queue.insert_or_assign(s_.leader_rank, started);
        return started;
      },
      s_.replica);
  double bus = bus_bytes(key.op, dense_bytes + expert_bytes, s_.gradient_group_size(key.scope));
  if (key.then_across_shards)
    bus += bus_bytes(CollectiveOp::all_reduce,
                     dense_bytes / par.dense_shard_ranks() + expert_bytes / par.expert_shard_ranks(),
                     s_.gradient_group_size(GradientScope::replicas));
  bytes_.push_back(dense_bytes + expert_bytes);
  keys_.push_back(key);
  s_.account().dp_bytes += bus;
  ++s_.account().dp_reductions;
}

void GradientReduction::finish_step() {
  // Without overlap, the whole stage's gradients are reduced after its last backward.
  if (!s_.w.scenario.parallel.overlap_grad_reduce && s_.w.scenario.parallel.gradient_group() > 1)
    start(s_.costs.dense_gradient_bytes, s_.costs.expert_gradient_bytes, true);
  s_.clock.settle();
  const double waiting_from = s_.clock.now();
  s_.wait_all_started(in_flight_);
  for (const ReplicaRendezvous::Key& key : in_flight_) s_.w.rendezvous.started(key)->wait();
  const double waited = s_.clock.now() - waiting_from;
  s_.account().dp_comm += waited;
  for (size_t i = 0; i < in_flight_.size(); ++i) {
    const CommActivity a = *s_.w.rendezvous.started(in_flight_[i]);
    s_.w.rendezvous.leave(in_flight_[i]);
    s_.account().add_comm_interval(a.start_s(), a.end_s());
    s_.observe(ActivityStream::dp_comm, "dp_reduce", nullptr, a.start_s(), a.end_s(), bytes_[i], 0,
               {plan_collectives(keys_[i], s_.w.scenario.parallel)});
  }
  in_flight_.clear();
  bytes_.clear();
  keys_.clear();
}

const CommActivity* GradientReduction::first_running() const {
  for (const ReplicaRendezvous::Key& key : in_flight_)
    if (const CommActivity* a = s_.w.rendezvous.started(key); a && !a->done()) return a;
  return nullptr;
}

std::optional<ReplicaRendezvous::Key> GradientReduction::awaited_start() const {
  for (const ReplicaRendezvous::Key& key : in_flight_)
    if (!s_.w.rendezvous.started(key)) return key;
  return std::nullopt;
}

}  // namespace trainsim
