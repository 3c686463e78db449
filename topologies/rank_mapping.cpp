#include "topologies/rank_mapping.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "models/rank_generator.hpp"
#include "sim/core/error.hpp"

namespace trainsim {

namespace {
size_t index_of(ParallelAxis a) {
  return static_cast<size_t>(a);
}
}  // namespace

RankMapping::RankMapping(const ParallelSpec& parallel, const ClusterSpec& cluster, std::vector<int> nodes)
    : parallel_(parallel),
      gpus_per_node_(cluster.gpus_per_node),
      domain_gpus_(cluster.domain_gpus()),
      world_size_(parallel.world_size()),
      nodes_(std::move(nodes)) {
  if (world_size_ != cluster.total_gpus())
    throw InputError("", "parallel.dp", std::to_string(parallel.dp),
                     "tp*pp*dp*cp = " + std::to_string(world_size_) + " must equal the cluster's GPUs, " +
                         std::to_string(cluster.total_gpus()));
  if (!nodes_.empty() && static_cast<int>(nodes_.size()) != cluster.nodes)
    throw std::logic_error("RankMapping: one platform node per node of the job");
  if (const auto rule = rank_order_rule(parallel_)) throw InputError("", "parallel.order", parallel_.order.text(), *rule);
  int stride = 1;
  for (const ParallelAxis a : parallel_.order) {
    stride_[index_of(a)] = stride;
    stride *= size_of(a);
  }
  // Megatron-Core's expert rank generator reads the same order with expert_tp at tp's place,
  // ep, expert data parallel at dp's place and cp of size 1 (parallel_state.py @ d98e8a64,
  // initialize_model_parallel). An axis the order leaves out has size 1: its stride is unused.
  if (parallel_.order.carves_experts_from_stages() || !parallel_.whole_expert_groups()) return;
  stride = 1;
  for (const ParallelAxis a : parallel_.order) {
    expert_stride_[index_of(a)] = stride;
    stride *= expert_size_of(a);
  }
}

int RankMapping::size_of(ParallelAxis axis) const {
  return dense_axis_size(parallel_, axis);
}

int RankMapping::expert_size_of(ParallelAxis axis) const {
  return expert_axis_size(parallel_, axis);
}

int RankMapping::stride_of(ParallelAxis axis) const {
  return stride_[index_of(axis)];
}

int RankMapping::coordinate(int rank, ParallelAxis axis) const {
  return rank / stride_of(axis) % size_of(axis);
}

int RankMapping::rank_at(int tp, int cp, int dp, int pp) const {
  return tp * stride_of(ParallelAxis::tp) + cp * stride_of(ParallelAxis::cp) + dp * stride_of(ParallelAxis::dp) +
         pp * stride_of(ParallelAxis::pp);
}

int RankMapping::stage_index(int rank) const {
  return coordinate(rank, ParallelAxis::tp) +
         parallel_.tp * (coordinate(rank, ParallelAxis::cp) + parallel_.cp * coordinate(rank, ParallelAxis::dp));
}

int RankMapping::rank_at_stage_index(int rank, int index) const {
  const int tp = index % parallel_.tp;
  const int cp = index / parallel_.tp % parallel_.cp;
  const int dp = index / (parallel_.tp * parallel_.cp);
  return coordinate(rank, ParallelAxis::pp) * stride_of(ParallelAxis::pp) + tp * stride_of(ParallelAxis::tp) +
         cp * stride_of(ParallelAxis::cp) + dp * stride_of(ParallelAxis::dp);
}

// Megatron-Core's order: the group of `axis` varies the rank's coordinate on that axis of the
// expert generator (expert_tp at tp's place, expert data parallel at dp's) and keeps the rest.
// A former order: the stage index i = etp_c + ETP (ep_c + EP edp_c); the group of `axis`
// varies one of the three and keeps the others.
std::vector<int> RankMapping::expert_group_of(int rank, GroupAxis axis) const {
  if (!parallel_.order.carves_experts_from_stages()) {
    const ParallelAxis a =
        axis == GroupAxis::etp ? ParallelAxis::tp : (axis == GroupAxis::ep ? ParallelAxis::ep : ParallelAxis::dp);
    const int stride = expert_stride_[index_of(a)];
    const int count = expert_size_of(a);
    const int origin = rank - rank / stride % count * stride;
    std::vector<int> ranks;
    ranks.reserve(static_cast<size_t>(count));
    for (int k = 0; k < count; ++k) ranks.push_back(origin + k * stride);
    return ranks;
  }
  const int etp = parallel_.expert_tp_size();
  const int ep = parallel_.ep;
  const int i = stage_index(rank);
  const int etp_c = i % etp;
  const int ep_c = i / etp % ep;
  const int edp_c = i / (etp * ep);
  std::vector<int> ranks;
  const auto add = [&](int e_tp, int e_p, int e_dp) {
    ranks.push_back(rank_at_stage_index(rank, e_tp + etp * (e_p + ep * e_dp)));
  };
  if (axis == GroupAxis::etp)
    for (int k = 0; k < etp; ++k) add(k, ep_c, edp_c);
  else if (axis == GroupAxis::ep)
    for (int k = 0; k < ep; ++k) add(etp_c, k, edp_c);
  else
    for (int k = 0; k < parallel_.expert_dp(); ++k) add(etp_c, ep_c, k);
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

std::vector<int> RankMapping::group_of(int rank, GroupAxis axis) const {
  if (axis == GroupAxis::ep || axis == GroupAxis::etp || axis == GroupAxis::edp) return expert_group_of(rank, axis);
  ParallelAxis base = ParallelAxis::dp;
  int count = parallel_.dp;
  switch (axis) {
    case GroupAxis::tp:
      base = ParallelAxis::tp;
      count = parallel_.tp;
      break;
    case GroupAxis::cp:
      base = ParallelAxis::cp;
      count = parallel_.cp;
      break;
    case GroupAxis::pp:
      base = ParallelAxis::pp;
      count = parallel_.pp;
      break;
    default:  // dp (the expert axes are handled above)
      break;
  }
  const int origin = rank - coordinate(rank, base) * stride_of(base);
  std::vector<int> ranks;
  for (int i = 0; i < count; ++i) ranks.push_back(origin + i * stride_of(base));
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

std::vector<std::vector<int>> RankMapping::groups(GroupAxis axis) const {
  std::vector<std::vector<int>> out;
  std::vector<bool> seen(static_cast<size_t>(world_size_), false);
  for (int r = 0; r < world_size_; ++r) {
    if (seen[static_cast<size_t>(r)]) continue;
    out.push_back(group_of(r, axis));
    for (const int m : out.back()) seen[static_cast<size_t>(m)] = true;
  }
  return out;
}

std::vector<std::string> RankMapping::warnings() const {
  std::vector<std::string> w;
  const auto tp_groups = groups(GroupAxis::tp);
  int spanning = 0;
  const std::vector<int>* first = nullptr;
  for (const auto& g : tp_groups) {
    const auto [lo, hi] = std::minmax_element(g.begin(), g.end());
    if (domain_of(*lo) != domain_of(*hi)) {
      if (!first) first = &g;
      ++spanning;
    }
  }
  if (spanning > 0) {
    // Megatron-LM keeps TP inside a node because its all-reduces are on the critical path
    // (Narayanan et al. SC21, §3.2 and §5.4); what matters is NVLink, so inside an NVLink
    // domain that spans nodes (NVL72) TP may span them.
    const bool by_node = domain_gpus_ == gpus_per_node_;
    const auto where = [&](int rank) { return by_node ? node_of(rank) : domain_of(rank); };
    w.push_back(std::to_string(spanning) + " of " + std::to_string(tp_groups.size()) + " TP groups span " +
                (by_node ? "nodes" : "NVLink domains of " + std::to_string(domain_gpus_) + " GPUs") + " (e.g. ranks " +
                std::to_string(first->front()) + "-" + std::to_string(first->back()) + " on " +
                (by_node ? "nodes " : "domains ") + std::to_string(where(first->front())) + "-" +
                std::to_string(where(first->back())) + "): tensor-parallel all-reduces will cross the inter-node fabric");
  }
  return w;
}

}  // namespace trainsim
