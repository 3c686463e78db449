#include "sim/engine/collective_algorithm.hpp"

#include <algorithm>
#include <unordered_map>

namespace trainsim::engine {

std::vector<std::vector<int>> gpus_by_node(const std::vector<int>& gpus, const Platform& platform) {
  // Called several times for every collective planned (the choice of algorithm, its estimates,
  // the plan): a std::map node per GPU was a tenth of the 1 GiB all-reduce on 4,096 GPUs. GPUs
  // come domain by domain in the common case: the group of the previous GPU, else a binary
  // search among the domains seen while they appear in increasing order; a hash map only for
  // groups whose domains appear out of order. The groups are the same in every case.
  std::vector<std::vector<int>> groups;
  std::vector<int> domain_of_group;  // increasing while `sorted`
  std::unordered_map<int, size_t> slot;  // filled once the domains stop increasing
  bool sorted = true;
  size_t last = 0;
  for (const int g : gpus) {
    const int d = platform.domain_of(g);
    if (!groups.empty() && domain_of_group[last] == d) {
      groups[last].push_back(g);
      continue;
    }
    if (sorted) {
      const auto it = std::lower_bound(domain_of_group.begin(), domain_of_group.end(), d);
      if (it != domain_of_group.end() && *it == d) {
        last = static_cast<size_t>(it - domain_of_group.begin());
        groups[last].push_back(g);
        continue;
      }
      if (it != domain_of_group.end()) {  // a new domain below one seen: from here on, a map
        sorted = false;
        for (size_t i = 0; i < domain_of_group.size(); ++i) slot.emplace(domain_of_group[i], i);
      }
    }
    if (!sorted) {
      const auto [it, inserted] = slot.try_emplace(d, groups.size());
      if (!inserted) {
        last = it->second;
        groups[last].push_back(g);
        continue;
      }
    }
    last = groups.size();
    domain_of_group.push_back(d);
    groups.emplace_back();
    if (last > 0) groups.back().reserve(groups[last - 1].size());  // domains alike, as a rule
    groups.back().push_back(g);
  }
  return groups;
}

double max_edge_latency_s(const std::vector<Transfer>& transfers, const Platform& platform) {
  double s = 0;
  for (const Transfer& t : transfers) s = std::max(s, platform.latency_s(t.src_gpu, t.dst_gpu));
  return s;
}

}  // namespace trainsim::engine
