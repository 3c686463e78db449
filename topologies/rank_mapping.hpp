#pragma once
// Rank mapping: which GPU each rank of a DP x TP x PP x CP (x EP) job runs on, and the
// communication group of each parallel axis.
//
// Rank r runs on GPU r (GPU g = node * gpus_per_node + local index). A rank's coordinate on
// each axis follows the scenario's order (models/rank_order.hpp), innermost (fastest-varying)
// first, as Megatron-Core's RankGenerator reads it: with the default tp-cp-ep-dp-pp, ranks
// 0..tp-1 form the first TP group and pipeline parallelism is outermost. The dense groups
// (tp, cp, dp, pp) come from the order with ep of size 1; the expert groups (expert_tp, ep,
// expert data parallel) from the same order read by Megatron-Core's expert rank generator:
// expert_tp at tp's place, ep at its own, expert data parallel at dp's, cp of size 1 (MoE
// parallel folding, Liu et al. 2025, arXiv:2504.14960). With expert_tp = tp and cp = 1 an EP
// group is ep consecutive DP indices with the other coordinates fixed.
// A former order (a permutation of tp, cp, pp, dp) carves the expert axes out of each
// pipeline stage's ranks: a rank's stage index, tp + TP (cp + CP dp), splits as expert_tp
// fastest, then ep, then expert data parallel.

#include <array>
#include <string>
#include <vector>

#include "models/parallel_spec.hpp"
#include "topologies/cluster_spec.hpp"

namespace trainsim {

/// etp: the ranks one expert is split over; edp: the ranks holding the same experts' slice
/// (the expert gradients' data-parallel group).
enum class GroupAxis { tp, cp, pp, dp, ep, etp, edp };

class RankMapping {
 public:
  /// Throws InputError when tp*cp*pp*dp differs from the cluster's GPU count, or the order
  /// breaks one of Megatron-Core's rules (rank_order_rule). `nodes`: the
  /// node of a larger cluster each of the job's nodes is (a neighbour job beside it,
  /// topologies/variation_spec.hpp); empty: node i is node i.
  RankMapping(const ParallelSpec& parallel, const ClusterSpec& cluster, std::vector<int> nodes = {});

  int world_size() const { return world_size_; }
  /// The GPU of the platform rank `rank` runs on: GPU `rank` of the job's nodes, in the order
  /// `nodes` places them. Node and domain indices below are the job's own.
  int gpu_of(int rank) const {
    return nodes_.empty() ? rank
                          : nodes_[static_cast<size_t>(rank / gpus_per_node_)] * gpus_per_node_ + rank % gpus_per_node_;
  }
  /// The GPUs of `ranks`, in their order.
  std::vector<int> gpus_of(const std::vector<int>& ranks) const {
    std::vector<int> gpus;
    gpus.reserve(ranks.size());
    for (const int r : ranks) gpus.push_back(gpu_of(r));
    return gpus;
  }
  int node_of(int rank) const { return rank / gpus_per_node_; }
  /// The NVLink domain the rank's GPU is in (its node on DGX/HGX, its rack on NVL72).
  int domain_of(int rank) const { return rank / domain_gpus_; }
  /// The rank's index along `axis` (0 .. size-1).
  int coordinate(int rank, ParallelAxis axis) const;
  /// How many ranks `axis` has (parallel.tp, cp, pp or dp; 1 for ep, which the dense ranks
  /// do not have).
  int size(ParallelAxis axis) const { return size_of(axis); }
  /// The rank at these coordinates (each 0 .. its axis' size - 1): what group_of walks to,
  /// without building a group.
  int rank_at(int tp, int cp, int dp, int pp) const;
  /// Every group of `axis`: ranks that differ only in that axis' coordinate, ascending.
  std::vector<std::vector<int>> groups(GroupAxis axis) const;
  /// The group of `axis` that `rank` belongs to.
  std::vector<int> group_of(int rank, GroupAxis axis) const;
  /// The rank's index among its pipeline stage's ranks, tp + TP (cp + CP dp): the index the
  /// expert axes decompose.
  int stage_index(int rank) const;
  /// Human-readable warnings, e.g. a TP group that spans NVLink domains (its all-reduces leave
  /// NVLink). A TP group across nodes of one domain (the trays of an NVL72 rack) is no warning.
  std::vector<std::string> warnings() const;

 private:
  int size_of(ParallelAxis axis) const;
  /// The axis' size in Megatron-Core's expert rank generator.
  int expert_size_of(ParallelAxis axis) const;
  int stride_of(ParallelAxis axis) const;
  /// The rank at `stage_index` in the stage `rank` is in.
  int rank_at_stage_index(int rank, int stage_index) const;
  std::vector<int> expert_group_of(int rank, GroupAxis axis) const;

  ParallelSpec parallel_;
  int gpus_per_node_ = 1;
  int domain_gpus_ = 1;
  int world_size_ = 1;
  std::array<int, 5> stride_{1, 1, 1, 1, 1};         ///< indexed by ParallelAxis
  std::array<int, 5> expert_stride_{1, 1, 1, 1, 1};  ///< the expert generator's (Megatron-Core's orders only)
  std::vector<int> nodes_;       ///< the platform node of each of the job's nodes; empty: the same
};

}  // namespace trainsim
