#pragma once
// The plans of a step's gradient-group collectives (gradient reductions, ZeRO gathers), made
// once and reduced together.
//
// Every simulated stage reduces its gradients, and gathers its parameters, over its gradient
// group: at 1,048,576 GPUs a ring of 8,192 GPUs per stage, the step's largest cost (README
// "Scale"). Most of a ring's legs repeat a link a kept leg already loads the same way
// (redundant_legs.hpp). The step lists every gradient-group plan its stages may start
// (GradientPlanKey; gradient_plan_keys in simulated_scope.hpp) and the links anything else
// may cross (pipeline transfers, TP, EP and CP collectives: foreign_links), and
// engine::prepare_plans_together finds the legs all of them can leave out wherever and
// whenever they run: the step's times stay those of every leg, to the bit
// (tests/step/gradient_legs_test.cpp). A plan not listed is a logic error, not a silent
// inexact run.

#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "models/parallel_spec.hpp"
#include "sim/engine/collective.hpp"
#include "sim/engine/comm_plan.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/step/gradient_groups.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_observer.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim {

/// One gradient-group collective a stage starts: on the gradient groups of `rank`'s TP
/// members (one member when the step simulates one transfer per TP group).
struct GradientPlanKey {
  int rank = 0;
  engine::CollectiveOp op = engine::CollectiveOp::all_reduce;
  double dense_bytes = 0;   ///< on the dense gradient groups
  double expert_bytes = 0;  ///< on the expert gradient groups
  GradientScope scope = GradientScope::whole;
  /// HSDP's gradient reduction: `op` within the shard group, then the shard all-reduced
  /// across the shard groups (PyTorch FSDP HYBRID_SHARD), one plan phase after phase.
  bool then_across_shards = false;

  auto tie() const { return std::tie(rank, op, dense_bytes, expert_bytes, scope, then_across_shards); }
  bool operator<(const GradientPlanKey& o) const { return tie() < o.tie(); }
};

/// The gradient reduction of `dense` and `experts` bytes that `rank`'s stage starts: a
/// reduce-scatter under ZeRO (Rajbhandari et al. 2020 §5.1-5.2), else an all-reduce, over
/// the whole gradient group, or under HSDP within the shard group and then, unless `across`
/// is false (Megatron FSDP's micro-batches before the last), across the groups.
GradientPlanKey reduction_key(const ParallelSpec& parallel, int rank, double dense, double experts, bool across = true);

/// What ZeRO's parameter gathers run over: the shard group under HSDP, else the whole group.
GradientScope gather_scope(const ParallelSpec& parallel);

/// What every gradient-group plan of a step runs over.
struct GradientGroups {
  const RankMapping& mapping;
  const ParallelSpec& parallel;
  bool one_per_tp_group = false;  ///< only TP rank 0's group (SimulatedScope::one_transfer_per_tp_group)
};

/// One plan running several collectives at once, phase by phase.
engine::CommPlan merged_plan(const std::vector<engine::CollectiveCall>& calls, const engine::Platform& platform);

/// The collectives `key`'s plan runs, relative to its rank (what the step reports of it:
/// step_observer.hpp): phase 0 on the dense and expert gradient groups in its scope, and
/// under HSDP phase 1 across the shard groups, as gradient_plan builds them.
std::vector<ActivityCollective> plan_collectives(const GradientPlanKey& key, const ParallelSpec& parallel);

/// The plan of `key`.
engine::CommPlan gradient_plan(const GradientPlanKey& key, const GradientGroups& groups,
                               const engine::Platform& platform);

/// One simulated bucket of a chunk's gradient reduction overlapped with its last backward
/// pass (Megatron-LM's buckets), or several merged: its bytes on the dense and expert groups,
/// the part of the pass's compute that runs before it is issued (up to its first bucket's
/// gradients), and the part after (its other buckets' gradients). A merged reduction issued
/// at its first bucket ends when its buckets issued one by one would wherever the reduction
/// is slower than the compute that produces a bucket; where it is faster, both hide.
struct ReductionBucket {
  double dense_bytes = 0;
  double expert_bytes = 0;
  double compute_share = 1;  ///< before it is issued
  double after_share = 0;    ///< after it is issued, before the next one
};

/// A chunk's buckets in the order the backward issues them.
struct ReductionBuckets {
  std::vector<ReductionBucket> buckets;
};

/// At most this many buckets per chunk are simulated, which bounds the simulation's cost at
/// large scale: the last bucket alone at its own size, the full buckets before it merged into
/// at most k_max_buckets_per_chunk - 1 reductions of as many buckets each (ReductionBucket).
constexpr int k_max_buckets_per_chunk = 4;

/// The buckets of the `share` of chunk `chunk`'s gradients one backward call produces (1 for a
/// part of the chunk, share < 1). Megatron-Core fills its buckets in backward order and closes
/// one once it holds at least `bucket_bytes` (megatron/core/optimizer/distrib_optimizer.py and
/// distributed/param_and_grad_buffer.py @ d98e8a64, the per-buffer parameter layout), so the
/// bucket the backward issues last, holding the first layers and the embedding, is what is
/// left: the gradients modulo `bucket_bytes` (a whole bucket when they divide evenly), its
/// reduction issued when the pass ends with nothing left to hide it. Parameters are taken as
/// divisible: a real bucket overshoots by up to one tensor.
/// A chunk's part of its stage's gradients is its part of the stage's layers (of its chunks
/// where the stage has no transformer layer).
ReductionBuckets reduction_buckets(const StageCosts& stage, int chunk, double share, double bucket_bytes);

/// overlap_param_gather: the stage's updated parameters all-gathered bucket by bucket in the
/// order the first forward pass uses them, as Megatron-Core runs it (distributed_data_parallel.py
/// @ d98e8a64: the first bucket's gather is dispatched before the forward, and each forward
/// pre-hook waits for its own bucket's gather and dispatches the next one's, so one bucket is
/// gathered ahead). The buckets are the gradient buckets of a stage with one model chunk in
/// reverse (reduction_buckets: the first layers' and the embedding's, the remainder, first),
/// each with its part of the stage's weights (`dense_bytes`, `expert_bytes`) and of the forward
/// pass's compute it feeds (`compute_share`). One bucket, the whole weights, where the stage has several chunks or
/// its gradients fill one bucket. Beyond k_max_gather_buckets the full buckets are merged into
/// equal gathers.
constexpr int k_max_gather_buckets = 32;
std::vector<ReductionBucket> parameter_gather_buckets(const StageCosts& stage, double bucket_bytes);

/// The step's gradient-group plans, prepared together, or none (every plan runs every leg).
class GradientPlans {
 public:
  GradientPlans() = default;
  /// Prepares the plans of `keys` on `planning` (a platform of the step's cluster, SimGrid
  /// or not) beside activities crossing `foreign_links`; marks the endpoints their kept legs
  /// touch in `endpoints` (engine::prepare_plans_together).
  GradientPlans(const engine::Platform& planning, const std::vector<GradientPlanKey>& keys,
                const GradientGroups& groups, const std::vector<bool>& foreign_links, std::vector<bool>* endpoints);

  bool empty() const { return plans_.empty(); }
  /// The prepared plan of `key`; null when none is prepared. A key missing from a non-empty
  /// set is a logic error (the step would run it with every leg beside plans that left
  /// legs out for it).
  std::shared_ptr<const engine::PreparedPlan> find(const GradientPlanKey& key) const;
  /// Legs left out over every phase of every plan, and legs in all.
  size_t left_out_legs() const { return left_out_; }
  size_t legs() const { return legs_; }

 private:
  std::map<GradientPlanKey, std::shared_ptr<const engine::PreparedPlan>> plans_;
  size_t left_out_ = 0;
  size_t legs_ = 0;
};

}  // namespace trainsim
