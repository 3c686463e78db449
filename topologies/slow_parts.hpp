#pragma once
// Which GPUs and NICs of a cluster are slow, and which switch uplinks are down (topologies/variation_spec.hpp): those
// listed, or a draw of distinct ones that depends on the seed alone (the same on every machine).

#include <cstdint>
#include <vector>

#include "topologies/cluster_spec.hpp"
#include "topologies/fabric_layout.hpp"
#include "topologies/variation_spec.hpp"

namespace trainsim {

/// The slow GPUs' ids (rank r runs on GPU r, rank_mapping.hpp), ascending; empty when
/// nothing differs. Listed ids past the cluster (a run shrunk by its elastic policy) are
/// left out. A drawn count takes the first `slow_gpu_count` of a seeded Fisher-Yates
/// shuffle of 0 .. total_gpus - 1, so a larger count keeps the smaller one's GPUs.
std::vector<int> slow_gpus(const VariationSpec& v, int total_gpus, std::uint64_t seed);

/// The slow NICs' ids (node x nics_per_node + the NIC's index in its node), as slow_gpus
/// draws or lists GPUs (its own stream of the seed); empty when nothing differs.
std::vector<int> slow_nics(const VariationSpec& v, int total_nics, std::uint64_t seed);

/// The leaf uplink cables down (leaf x uplinks per leaf + index), as slow_gpus draws or lists
/// GPUs (its own stream of the seed); empty when none is.
std::vector<int> down_uplinks(const VariationSpec& v, int total_uplinks, std::uint64_t seed);

/// The spine switches down, as slow_gpus draws or lists GPUs (its own stream of the seed);
/// empty when none is.
std::vector<int> down_spines(const VariationSpec& v, int total_spines, std::uint64_t seed);

/// `cluster` with `v`'s slow GPUs, slow NICs, uplinks and spines down resolved into its
/// slow_gpus, slow_nics, down_uplinks and down_spines (and their speeds; 1 where none is slow): the one place a
/// simulation draws them, so that every reader of the cluster sees the same parts.
ClusterSpec with_slow_parts(ClusterSpec cluster, const VariationSpec& v, std::uint64_t seed);

/// As above, but the uplinks and spines down drawn and numbered on `fabric`'s switches: the
/// cluster with a neighbour job's nodes beside the job's (Scenario::fabric), whose ids the
/// job's cluster then holds.
ClusterSpec with_slow_parts(ClusterSpec cluster, const VariationSpec& v, std::uint64_t seed, const ClusterSpec& fabric);

/// Per leaf of `layout` (the cluster's), how many of its uplink cables are down: those in
/// cluster.down_uplinks and those to its pod's or rail's spines in cluster.down_spines, each
/// cable once. Empty when none is down or the leaves have no uplinks.
std::vector<int> down_cables_per_leaf(const ClusterSpec& cluster, const FabricLayout& layout);

}  // namespace trainsim
