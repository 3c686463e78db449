#include "topologies/rank_mapping.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace trainsim {

namespace {
size_t index_of(ParallelAxis a) {
  return static_cast<size_t>(a);
}
}  // namespace

RankMapping::RankMapping(const ParallelSpec& parallel, const ClusterSpec& cluster)
    : parallel_(parallel),
      gpus_per_node_(cluster.gpus_per_node),
      domain_gpus_(cluster.domain_gpus()),
      world_size_(parallel.world_size()) {
  if (world_size_ != cluster.total_gpus())
    throw InputError("", "parallel.dp", std::to_string(parallel.dp),
                     "tp*pp*dp*cp = " + std::to_string(world_size_) + " must equal the cluster's GPUs, " +
                         std::to_string(cluster.total_gpus()));
  int stride = 1;
  for (const ParallelAxis a : parallel_.order) {
    stride_[index_of(a)] = stride;
    stride *= size_of(a);
  }
}

int RankMapping::size_of(ParallelAxis axis) const {
  switch (axis) {
    case ParallelAxis::tp:
      return parallel_.tp;
    case ParallelAxis::cp:
      return parallel_.cp;
    case ParallelAxis::pp:
      return parallel_.pp;
    case ParallelAxis::dp:
      return parallel_.dp;
  }
  return 1;
}

int RankMapping::stride_of(ParallelAxis axis) const {
  return stride_[index_of(axis)];
}

int RankMapping::coordinate(int rank, ParallelAxis axis) const {
  return rank / stride_of(axis) % size_of(axis);
}

std::vector<int> RankMapping::group_of(int rank, GroupAxis axis) const {
  ParallelAxis base = ParallelAxis::dp;
  int first = 0;
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
    case GroupAxis::dp:
      break;
    case GroupAxis::ep:
      count = parallel_.ep;
      first = coordinate(rank, ParallelAxis::dp) / parallel_.ep * parallel_.ep;
      break;
  }
  const int origin = rank - coordinate(rank, base) * stride_of(base);
  std::vector<int> ranks;
  for (int i = first; i < first + count; ++i) ranks.push_back(origin + i * stride_of(base));
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
