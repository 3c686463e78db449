#include "sim/engine/collective_algorithm.hpp"

#include <algorithm>
#include <map>

namespace trainsim::engine {

std::vector<std::vector<int>> gpus_by_node(const std::vector<int>& gpus, const Platform& platform) {
  std::vector<std::vector<int>> groups;
  std::map<int, size_t> slot;
  for (const int g : gpus) {
    const auto [it, inserted] = slot.try_emplace(platform.domain_of(g), groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(g);
  }
  return groups;
}

double max_edge_latency_s(const std::vector<Transfer>& transfers, const Platform& platform) {
  double s = 0;
  for (const Transfer& t : transfers) s = std::max(s, platform.latency_s(t.src_gpu, t.dst_gpu));
  return s;
}

}  // namespace trainsim::engine
