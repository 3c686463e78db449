#include "sim/step/gradient_plans.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "sim/engine/algorithm_selection.hpp"

namespace trainsim {

namespace {

using engine::CollectiveCall;
using engine::CollectiveOp;
using engine::CommPlan;

// The calls of `op` over `scope` of the gradient group of each TP member of `rank` (dense
// and expert groups).
std::vector<CollectiveCall> gradient_group_calls(const GradientGroups& groups, int rank, CollectiveOp op, double bytes,
                                                 double expert_bytes, GradientScope scope) {
  std::vector<CollectiveCall> calls;
  const std::vector<int> tp_group = groups.mapping.group_of(rank, GroupAxis::tp);
  const size_t members = groups.one_per_tp_group ? 1 : tp_group.size();
  for (size_t i = 0; i < members; ++i) {
    for (const bool experts : {false, true}) {
      const double size = experts ? expert_bytes : bytes;
      if (size <= 0) continue;
      CollectiveCall call;
      call.op = op;
      call.gpus = groups.mapping.gpus_of(gradient_group(groups.mapping, groups.parallel, tp_group[i], experts, scope));
      call.bytes = size;
      if (call.gpus.size() > 1) calls.push_back(call);
    }
  }
  return calls;
}

}  // namespace

CommPlan merged_plan(const std::vector<CollectiveCall>& calls, const engine::Platform& platform) {
  CommPlan merged;
  for (const CollectiveCall& call : calls) {
    const CommPlan plan = engine::plan_collective(call, platform);
    if (merged.phases.size() < plan.phases.size()) merged.phases.resize(plan.phases.size());
    for (size_t i = 0; i < plan.phases.size(); ++i) {
      auto& phase = merged.phases[i];
      phase.transfers.insert(phase.transfers.end(), plan.phases[i].transfers.begin(), plan.phases[i].transfers.end());
      phase.latency_s = std::max(phase.latency_s, plan.phases[i].latency_s);
    }
  }
  return merged;
}

GradientPlanKey reduction_key(const ParallelSpec& parallel, int rank, double dense, double experts, bool across) {
  const CollectiveOp op = parallel.zero >= 1 ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
  if (parallel.hybrid_sharding()) return {rank, op, dense, experts, GradientScope::shard, across};
  return {rank, op, dense, experts, GradientScope::whole, false};
}

GradientScope gather_scope(const ParallelSpec& parallel) {
  return parallel.hybrid_sharding() ? GradientScope::shard : GradientScope::whole;
}

std::vector<ActivityCollective> plan_collectives(const GradientPlanKey& key, const ParallelSpec& par) {
  std::vector<ActivityCollective> out;
  const auto add = [&](CollectiveOp op, double dense, double experts, GradientScope scope, int phase) {
    if (dense > 0) out.push_back({op, ActivityGroup::gradient, scope, dense, phase});
    if (experts > 0) out.push_back({op, ActivityGroup::expert_gradient, scope, experts, phase});
  };
  add(key.op, key.dense_bytes, key.expert_bytes, key.then_across_shards ? GradientScope::shard : key.scope, 0);
  if (key.then_across_shards)
    add(CollectiveOp::all_reduce, key.dense_bytes / par.dense_shard_ranks(),
        key.expert_bytes / par.expert_shard_ranks(), GradientScope::replicas, 1);
  return out;
}

CommPlan gradient_plan(const GradientPlanKey& key, const GradientGroups& groups, const engine::Platform& platform) {
  if (!key.then_across_shards)
    return merged_plan(gradient_group_calls(groups, key.rank, key.op, key.dense_bytes, key.expert_bytes, key.scope),
                       platform);
  const ParallelSpec& par = groups.parallel;
  CommPlan plan = merged_plan(
      gradient_group_calls(groups, key.rank, key.op, key.dense_bytes, key.expert_bytes, GradientScope::shard),
      platform);
  const CommPlan across = merged_plan(
      gradient_group_calls(groups, key.rank, CollectiveOp::all_reduce, key.dense_bytes / par.dense_shard_ranks(),
                           key.expert_bytes / par.expert_shard_ranks(), GradientScope::replicas),
      platform);
  plan.phases.insert(plan.phases.end(), across.phases.begin(), across.phases.end());
  return plan;
}

ReductionBuckets reduction_buckets(const StageCosts& stage, int chunk, double share, double bucket_bytes) {
  const int layers_on_stage = stage.layers();
  // A stage without transformer layers (the embedding or the output layer alone, as
  // stage_split = even-with-ends gives when the layers are few) has its gradients in equal
  // parts over its chunks.
  const double part = layers_on_stage > 0 ? share * stage.chunks[static_cast<size_t>(chunk)].layers / layers_on_stage
                                          : share / static_cast<double>(stage.chunks.size());
  const double dense = stage.dense_gradient_bytes * part;
  const double experts = stage.expert_gradient_bytes * part;
  ReductionBuckets out;
  const double total = dense + experts;
  const double whole = bucket_bytes > 0 ? std::floor(total / bucket_bytes) : 0.0;
  if (share < 1.0 || total <= 0 || whole < 1.0) {
    out.buckets.push_back({dense, experts, 1.0});
    return out;
  }
  // The last bucket: the remainder, or one whole bucket when the gradients divide evenly.
  double last = total - whole * bucket_bytes;
  double full = whole;
  if (last <= 0) {
    last = bucket_bytes;
    full -= 1.0;
  }
  const int merged = static_cast<int>(std::min<double>(full, k_max_buckets_per_chunk - 1));
  const double one = bucket_bytes / total;  // one whole bucket's part of the gradients
  for (int i = 0; i < merged; ++i) {
    const double f = (total - last) / total / merged;
    out.buckets.push_back({dense * f, experts * f, std::min(one, f), std::max(0.0, f - one)});
  }
  const double f = last / total;
  out.buckets.push_back({dense * f, experts * f, f, 0.0});
  return out;
}

std::vector<ReductionBucket> parameter_gather_buckets(const StageCosts& stage, double bucket_bytes) {
  const double dense = stage.dense_weight_bytes;
  const double experts = stage.expert_weight_bytes;
  const double gradients = stage.dense_gradient_bytes + stage.expert_gradient_bytes;
  const double whole = bucket_bytes > 0 ? std::floor(gradients / bucket_bytes) : 0.0;
  if (stage.chunks.size() != 1 || gradients <= 0 || whole < 1.0) return {{dense, experts, 1.0, 0.0}};
  double last = gradients - whole * bucket_bytes;  // as reduction_buckets
  double full = whole;
  if (last <= 0) {
    last = bucket_bytes;
    full -= 1.0;
  }
  // Each bucket simulated alone (a merged gather would be waited for whole before its first
  // bucket's compute), up to k_max_gather_buckets in all.
  const int groups = static_cast<int>(std::min<double>(full, k_max_gather_buckets - 1));
  std::vector<ReductionBucket> out;
  const double f_last = last / gradients;
  out.push_back({dense * f_last, experts * f_last, f_last, 0.0});
  for (int i = 0; i < groups; ++i) {
    const double f = (1.0 - f_last) / groups;
    out.push_back({dense * f, experts * f, f, 0.0});
  }
  return out;
}

GradientPlans::GradientPlans(const engine::Platform& planning, const std::vector<GradientPlanKey>& keys,
                             const GradientGroups& groups, const std::vector<bool>& foreign_links,
                             std::vector<bool>* endpoints) {
  // Keys order by their bytes: a NaN would break the order (and is no size).
  for (const GradientPlanKey& key : keys)
    if (!std::isfinite(key.dense_bytes) || !std::isfinite(key.expert_bytes))
      throw std::logic_error("gradient-group plan of a size that is not finite (gradient_plans.hpp)");
  const std::set<GradientPlanKey> unique(keys.begin(), keys.end());
  std::vector<CommPlan> plans;
  plans.reserve(unique.size());
  for (const GradientPlanKey& key : unique) plans.push_back(gradient_plan(key, groups, planning));
  std::vector<engine::PreparedPlan> prepared =
      engine::prepare_plans_together(planning, std::move(plans), foreign_links, endpoints);
  size_t i = 0;
  for (const GradientPlanKey& key : unique) {
    for (const std::vector<bool>& phase : prepared[i].left_out) {
      legs_ += phase.size();
      left_out_ += static_cast<size_t>(std::count(phase.begin(), phase.end(), true));
    }
    plans_.emplace(key, std::make_shared<const engine::PreparedPlan>(std::move(prepared[i++])));
  }
}

std::shared_ptr<const engine::PreparedPlan> GradientPlans::find(const GradientPlanKey& key) const {
  if (plans_.empty()) return nullptr;
  const auto it = plans_.find(key);
  if (it == plans_.end())
    throw std::logic_error("gradient-group plan started but not prepared with the step's others (gradient_plans.hpp)");
  return it->second;
}

}  // namespace trainsim
