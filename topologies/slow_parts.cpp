#include "topologies/slow_parts.hpp"

#include <algorithm>
#include <random>
#include <unordered_map>
#include <utility>

#include "sim/core/portable_random.hpp"
#include "topologies/fabric_layout.hpp"

namespace trainsim {

namespace {

// Keep the slow parts' draws apart from the other draws seeded by run.seed (failures, expert
// loads) and from each other: the same seed gives unrelated streams.
constexpr std::uint64_t k_slow_gpu_stream = 0x5105'6a75'0000'0001ULL;
constexpr std::uint64_t k_slow_nic_stream = 0x5105'6a75'0000'0003ULL;
constexpr std::uint64_t k_down_uplink_stream = 0x5105'6a75'0000'0004ULL;
constexpr std::uint64_t k_down_spine_stream = 0x5105'6a75'0000'0005ULL;

// `listed` within [0, total), or the first `count` of a seeded partial Fisher-Yates shuffle
// of 0 .. total - 1 over a sparse map (memory in the count, not the cluster); ascending.
std::vector<int> listed_or_drawn(const std::vector<int>& listed, int count, int total, std::uint64_t seed) {
  if (!listed.empty()) {
    std::vector<int> within;
    for (const int id : listed)
      if (id < total) within.push_back(id);
    return within;
  }
  std::mt19937_64 rng(seed);
  std::unordered_map<int, int> moved;
  const auto at = [&](int i) {
    const auto it = moved.find(i);
    return it == moved.end() ? i : it->second;
  };
  std::vector<int> drawn;
  for (int i = 0; i < std::min(count, total); ++i) {
    const int j = i + static_cast<int>(portable::uniform01(rng) * (total - i));
    const int picked = at(j);
    moved[j] = at(i);
    drawn.push_back(picked);
  }
  std::sort(drawn.begin(), drawn.end());
  return drawn;
}

}  // namespace

std::vector<int> slow_gpus(const VariationSpec& v, int total_gpus, std::uint64_t seed) {
  if (!v.any()) return {};
  return listed_or_drawn(v.slow_gpu_ids, v.slow_gpu_count, total_gpus, seed ^ k_slow_gpu_stream);
}

std::vector<int> slow_nics(const VariationSpec& v, int total_nics, std::uint64_t seed) {
  if (!v.any_slow_nic()) return {};
  return listed_or_drawn(v.slow_nic_ids, v.slow_nic_count, total_nics, seed ^ k_slow_nic_stream);
}

std::vector<int> down_uplinks(const VariationSpec& v, int total_uplinks, std::uint64_t seed) {
  if (!v.any_down_uplink()) return {};
  return listed_or_drawn(v.down_uplink_ids, v.down_uplink_count, total_uplinks, seed ^ k_down_uplink_stream);
}

std::vector<int> down_spines(const VariationSpec& v, int total_spines, std::uint64_t seed) {
  if (!v.any_down_spine()) return {};
  return listed_or_drawn(v.down_spine_ids, v.down_spine_count, total_spines, seed ^ k_down_spine_stream);
}

ClusterSpec with_slow_parts(ClusterSpec cluster, const VariationSpec& v, std::uint64_t seed) {
  const ClusterSpec fabric = cluster;
  return with_slow_parts(std::move(cluster), v, seed, fabric);
}

ClusterSpec with_slow_parts(ClusterSpec cluster, const VariationSpec& v, std::uint64_t seed,
                            const ClusterSpec& fabric) {
  cluster.slow_gpus = slow_gpus(v, cluster.total_gpus(), seed);
  cluster.slow_gpu_speed = cluster.slow_gpus.empty() ? 1.0 : v.slow_gpu_speed;
  cluster.slow_nics = slow_nics(v, cluster.nodes * cluster.nics_per_node, seed);
  cluster.slow_nic_speed = cluster.slow_nics.empty() ? 1.0 : v.slow_nic_speed;
  const FabricLayout layout = fabric_layout(fabric);
  cluster.down_uplinks = down_uplinks(v, layout.leaves * layout.leaf_uplinks, seed);
  cluster.down_spines = down_spines(v, layout.spines, seed);
  return cluster;
}

std::vector<int> down_cables_per_leaf(const ClusterSpec& cluster, const FabricLayout& layout) {
  const int per_leaf = layout.leaf_uplinks;
  if (per_leaf == 0 || (cluster.down_uplinks.empty() && cluster.down_spines.empty())) return {};
  std::vector<bool> down(static_cast<size_t>(layout.leaves) * static_cast<size_t>(per_leaf), false);
  for (const int cable : cluster.down_uplinks)
    if (cable >= 0 && cable < layout.leaves * per_leaf) down[static_cast<size_t>(cable)] = true;
  // Spine s of pod or rail s / per_leaf takes cable s % per_leaf of each of its leaves.
  for (const int spine : cluster.down_spines)
    for (int leaf = 0; leaf < layout.leaves; ++leaf)
      if (layout.group_of_leaf(leaf) == spine / per_leaf)
        down[static_cast<size_t>(leaf * per_leaf + spine % per_leaf)] = true;
  std::vector<int> per(static_cast<size_t>(layout.leaves), 0);
  for (size_t c = 0; c < down.size(); ++c)
    if (down[c]) ++per[c / static_cast<size_t>(per_leaf)];
  return per;
}

}  // namespace trainsim
