#include "sim/step/simulated_scope.hpp"

#include "sim/engine/endpoint_selection.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/step/gradient_groups.hpp"

namespace trainsim {

SimulatedScope simulated_scope(const Scenario& s, const RankMapping& mapping, const ClusterSpec& fabric,
                               const StepOptions& options) {
  const int all_replicas = s.parallel.dp * s.parallel.cp;
  SimulatedScope scope;
  scope.classes = replica_classes(s, mapping, fabric, options.reduce_symmetry);
  scope.replicate_p2p = options.reduce_symmetry && s.cluster.oversubscription > 1 && all_replicas > 1 &&
                        all_replicas * s.parallel.tp <= options.max_replicated_transfers;
  // A slow NIC or an uplink down breaks the symmetry between a TP group's ranks (each has its
  // own NIC, on its own rail's leaf): each one's traffic runs.
  scope.one_transfer_per_tp_group = options.reduce_symmetry && s.cluster.nics_per_node >= s.cluster.gpus_per_node &&
                                    s.cluster.oversubscription <= 1.0 && s.cluster.slow_nics.empty() &&
                                    fabric.down_uplinks.empty() && fabric.down_spines.empty();
  return scope;
}

int rank_of(const RankMapping& mapping, int replica, int stage, int tp_index) {
  const int dp = mapping.size(ParallelAxis::dp);
  return mapping.rank_at(tp_index, replica / dp, replica % dp, stage);
}

namespace {

// The replicas whose pipeline transfers are simulated: with replicate_p2p each simulated
// replica's class, else the simulated replicas alone.
std::vector<int> pipeline_replicas(const SimulatedScope& scope) {
  std::vector<int> replicas;
  for (const ReplicaClass& c : scope.classes) {
    if (scope.replicate_p2p)
      replicas.insert(replicas.end(), c.members.begin(), c.members.end());
    else
      replicas.push_back(c.representative);
  }
  return replicas;
}

// The GPU groups the stage actors' traffic other than the gradient-group plans runs in: the
// pipeline (every stage's TP group: transfers run between any two stages) of each replica
// whose pipeline transfers are simulated, and each simulated stage's TP, EP, expert-TP and
// CP groups.
std::vector<std::vector<int>> other_traffic_groups(const Scenario& s, const RankMapping& mapping,
                                                   const SimulatedScope& scope) {
  std::vector<std::vector<int>> groups;
  const int pp = s.parallel.pp;
  for (const int replica : pipeline_replicas(scope)) {
    std::vector<int> pipeline;
    for (int stage = 0; stage < pp; ++stage)
      for (const int r : mapping.group_of(rank_of(mapping, replica, stage), GroupAxis::tp)) pipeline.push_back(r);
    groups.push_back(mapping.gpus_of(pipeline));
  }
  for (const ReplicaClass& c : scope.classes)
    for (int stage = 0; stage < pp; ++stage)
      for (const GroupAxis axis : {GroupAxis::tp, GroupAxis::ep, GroupAxis::etp, GroupAxis::cp})
        groups.push_back(mapping.gpus_of(mapping.group_of(rank_of(mapping, c.representative, stage), axis)));
  return groups;
}

}  // namespace

std::vector<bool> touched_endpoints(const Scenario& s, const RankMapping& mapping, const SimulatedScope& scope,
                                    const std::vector<bool>* gradient_endpoints) {
  engine::EndpointSelection selection(s.cluster);
  selection.add_group({0});
  for (const std::vector<int>& group : other_traffic_groups(s, mapping, scope)) selection.add_group(group);
  if (!gradient_endpoints) {
    for (const ReplicaClass& c : scope.classes) {
      for (int stage = 0; stage < s.parallel.pp; ++stage) {
        const std::vector<int> tp = mapping.group_of(rank_of(mapping, c.representative, stage), GroupAxis::tp);
        const size_t members = scope.one_transfer_per_tp_group ? 1 : tp.size();
        for (size_t i = 0; i < members; ++i)
          for (const bool experts : {false, true})
            selection.add_group(mapping.gpus_of(gradient_group(mapping, s.parallel, tp[i], experts)));
      }
    }
  }
  std::vector<bool> endpoints = selection.endpoints();
  if (gradient_endpoints)
    for (size_t e = 0; e < endpoints.size(); ++e) endpoints[e] = endpoints[e] || (*gradient_endpoints)[e];
  return endpoints;
}

std::vector<bool> foreign_links(const Scenario& s, const RankMapping& mapping, const SimulatedScope& scope,
                                const engine::Platform& platform) {
  std::vector<bool> links(static_cast<size_t>(platform.routes().link_count()), false);
  for (const std::vector<int>& group : other_traffic_groups(s, mapping, scope))
    engine::mark_group_links(platform, group, links);
  return links;
}

std::vector<GradientPlanKey> gradient_plan_keys(const Scenario& s, const RankMapping& mapping, const StepCosts& costs) {
  const ParallelSpec& par = s.parallel;
  std::vector<GradientPlanKey> keys;
  if (par.gradient_group() <= 1) return keys;
  for (int stage = 0; stage < par.pp; ++stage) {
    const int rank = rank_of(mapping, 0, stage);
    const StageCosts& st = costs.stages[static_cast<size_t>(stage)];
    const auto reduce = [&](double dense, double experts) { keys.push_back(reduction_key(par, rank, dense, experts)); };
    reduce(st.dense_gradient_bytes, st.expert_gradient_bytes);
    for (size_t c = 0; c < st.chunks.size(); ++c) {
      std::vector<double> shares{1.0};
      if (c < st.zero3_units.size() && st.zero3_units[c] > 0) shares.push_back(1.0 / st.zero3_units[c]);
      for (const double share : shares) {
        for (const ReductionBucket& b :
             reduction_buckets(st, static_cast<int>(c), share, s.training.dp_bucket_bytes).buckets) {
          reduce(b.dense_bytes, b.expert_bytes);
          // Megatron FSDP's micro-batches before the last reduce within the shard groups only.
          if (par.megatron_fsdp()) keys.push_back(reduction_key(par, rank, b.dense_bytes, b.expert_bytes, false));
        }
      }
    }
    if (par.zero >= 3 && st.zero3_unit_bytes + st.zero3_unit_expert_bytes > 0)
      keys.push_back({rank, engine::CollectiveOp::all_gather, st.zero3_unit_bytes, st.zero3_unit_expert_bytes,
                      gather_scope(par), false});
    if (par.zero >= 1 && par.zero < 3) {
      keys.push_back({rank, engine::CollectiveOp::all_gather, st.dense_weight_bytes, st.expert_weight_bytes,
                      gather_scope(par), false});
      if (par.overlap_param_gather)
        for (const ReductionBucket& b : parameter_gather_buckets(st, s.training.dp_bucket_bytes))
          keys.push_back({rank, engine::CollectiveOp::all_gather, b.dense_bytes, b.expert_bytes, gather_scope(par),
                          false});
    }
  }
  return keys;
}

}  // namespace trainsim
