#include "sim/step/replica_classes.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "sim/step/simulated_scope.hpp"
#include "topologies/fabric_layout.hpp"
#include "topologies/slow_parts.hpp"

namespace trainsim {

std::vector<int> paced_ranks(const RankMapping& mapping, int slow_gpu) {
  // A breadth-first walk over the groups a layer's collectives couple (rank r runs on GPU r).
  std::vector<int> found{slow_gpu};
  std::unordered_map<int, bool> seen{{slow_gpu, true}};
  for (size_t next = 0; next < found.size(); ++next)
    for (const GroupAxis axis : {GroupAxis::tp, GroupAxis::cp, GroupAxis::ep, GroupAxis::etp})
      for (const int r : mapping.group_of(found[next], axis))
        if (seen.emplace(r, true).second) found.push_back(r);
  std::sort(found.begin(), found.end());
  return found;
}

namespace {

// Whether a node that `rank`'s TP, CP, EP or expert-TP groups use is in `slow_node` (a slow NIC,
// or a NIC under a leaf with an uplink down).
bool uses_slow_nic(const RankMapping& mapping, int rank, const std::vector<bool>& slow_node) {
  for (const GroupAxis axis : {GroupAxis::tp, GroupAxis::cp, GroupAxis::ep, GroupAxis::etp})
    for (const int r : mapping.group_of(rank, axis))
      if (slow_node[static_cast<size_t>(mapping.node_of(r))]) return true;
  return false;
}

}  // namespace

std::vector<ReplicaClass> replica_classes(const Scenario& s, const RankMapping& mapping, const ClusterSpec& fabric,
                                          bool reduce_symmetry) {
  const int replicas = s.parallel.dp * s.parallel.cp;
  const int pp = s.parallel.pp;
  // Each paced rank's slowdown: a slow GPU's kernels take 1 / speed as long.
  std::unordered_map<int, double> slowdown;
  for (const int gpu : s.cluster.slow_gpus)
    if (slowdown.find(gpu) == slowdown.end())
      for (const int r : paced_ranks(mapping, gpu)) slowdown[r] = 1.0 / s.cluster.slow_gpu_speed;
  // Nodes with a slow NIC, or a NIC under a leaf with an uplink down.
  std::vector<bool> slow_node;
  if (!s.cluster.slow_nics.empty() && s.cluster.slow_nic_speed < 1.0) {
    slow_node.assign(static_cast<size_t>(s.cluster.nodes), false);
    for (const int nic : s.cluster.slow_nics)
      if (nic / s.cluster.nics_per_node < s.cluster.nodes)
        slow_node[static_cast<size_t>(nic / s.cluster.nics_per_node)] = true;
  }
  const FabricLayout layout = fabric_layout(fabric);
  if (const std::vector<int> down = down_cables_per_leaf(fabric, layout); !down.empty()) {
    // What each of the job's nodes' NICs find above them (on the platform node the mapping
    // puts it): their leaf's cables down and their pod's or rail's spines down. Where every
    // node finds the same (a spine of a two-level fat tree down: every leaf loses a cable),
    // the cluster stays symmetric.
    std::vector<int> spines_down(static_cast<size_t>(layout.groups), 0);
    for (const int spine : fabric.down_spines) ++spines_down[static_cast<size_t>(spine / layout.leaf_uplinks)];
    const int gpus_per_node = s.cluster.gpus_per_node;
    const auto above = [&](int node) {
      const int placed = mapping.gpu_of(node * gpus_per_node) / gpus_per_node;
      std::vector<int> seen;
      for (int nic = 0; nic < layout.nics_per_node; ++nic) {
        const int leaf = layout.leaf_of_nic(placed, nic);
        seen.push_back(down[static_cast<size_t>(leaf)]);
        seen.push_back(spines_down[static_cast<size_t>(layout.group_of_leaf(leaf))]);
      }
      return seen;
    };
    const std::vector<int> first = above(0);
    bool alike = true;
    for (int node = 1; node < s.cluster.nodes && alike; ++node) alike = above(node) == first;
    if (!alike) {
      slow_node.resize(static_cast<size_t>(s.cluster.nodes), false);
      for (int node = 0; node < s.cluster.nodes; ++node) {
        const std::vector<int> seen = above(node);
        if (std::any_of(seen.begin(), seen.end(), [](int n) { return n > 0; }))
          slow_node[static_cast<size_t>(node)] = true;
      }
    }
  }
  std::vector<ReplicaClass> classes;
  if (slowdown.empty() && slow_node.empty() && reduce_symmetry) {  // a uniform cluster: replica 0 stands for all
    classes.push_back(
        {0, {}, std::vector<double>(static_cast<size_t>(pp), 1.0), std::vector<bool>(static_cast<size_t>(pp), false)});
    for (int replica = 0; replica < replicas; ++replica) classes[0].members.push_back(replica);
    return classes;
  }
  // By stage slowdowns, and for a replica near a slow NIC its own id: which of a node's NICs its
  // traffic crosses depends on its GPUs, so no other replica stands for it.
  std::map<std::pair<std::vector<double>, int>, size_t> class_of;
  for (int replica = 0; replica < replicas; ++replica) {
    std::vector<double> stages(static_cast<size_t>(pp), 1.0);
    std::vector<bool> nics(static_cast<size_t>(pp), false);
    for (int stage = 0; stage < pp; ++stage) {
      const int rank = rank_of(mapping, replica, stage);
      const auto it = slowdown.find(rank);
      if (it != slowdown.end()) stages[static_cast<size_t>(stage)] = it->second;
      if (!slow_node.empty()) nics[static_cast<size_t>(stage)] = uses_slow_nic(mapping, rank, slow_node);
    }
    const bool near_slow_nic = std::find(nics.begin(), nics.end(), true) != nics.end();
    auto signature = std::make_pair(stages, near_slow_nic ? replica : -1);
    const auto known = reduce_symmetry ? class_of.find(signature) : class_of.end();
    if (known != class_of.end()) {
      classes[known->second].members.push_back(replica);
      continue;
    }
    class_of.emplace(std::move(signature), classes.size());
    classes.push_back({replica, {replica}, std::move(stages), std::move(nics)});
  }
  return classes;
}

}  // namespace trainsim
