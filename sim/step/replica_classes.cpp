#include "sim/step/replica_classes.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "sim/step/simulated_scope.hpp"
#include "topologies/slow_gpus.hpp"

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

std::vector<ReplicaClass> replica_classes(const Scenario& s, const RankMapping& mapping, bool reduce_symmetry) {
  const int replicas = s.parallel.dp * s.parallel.cp;
  const int pp = s.parallel.pp;
  // Each paced rank's slowdown: a slow GPU's kernels take 1 / speed as long.
  std::unordered_map<int, double> slowdown;
  for (const int gpu : slow_gpus(s.variations, s.cluster.total_gpus(), s.run.seed))
    if (slowdown.find(gpu) == slowdown.end())
      for (const int r : paced_ranks(mapping, gpu)) slowdown[r] = 1.0 / s.variations.slow_gpu_speed;
  std::vector<ReplicaClass> classes;
  if (slowdown.empty() && reduce_symmetry) {  // a uniform cluster: replica 0 stands for all
    classes.push_back({0, {}, std::vector<double>(static_cast<size_t>(pp), 1.0)});
    for (int replica = 0; replica < replicas; ++replica) classes[0].members.push_back(replica);
    return classes;
  }
  std::map<std::vector<double>, size_t> class_of;
  for (int replica = 0; replica < replicas; ++replica) {
    std::vector<double> stages(static_cast<size_t>(pp), 1.0);
    for (int stage = 0; stage < pp; ++stage) {
      const auto it = slowdown.find(rank_of(mapping, replica, stage));
      if (it != slowdown.end()) stages[static_cast<size_t>(stage)] = it->second;
    }
    const auto known = reduce_symmetry ? class_of.find(stages) : class_of.end();
    if (known != class_of.end()) {
      classes[known->second].members.push_back(replica);
      continue;
    }
    class_of.emplace(stages, classes.size());
    classes.push_back({replica, {replica}, std::move(stages)});
  }
  return classes;
}

}  // namespace trainsim
