#include "topologies/slow_gpus.hpp"

#include <algorithm>
#include <random>
#include <unordered_map>

#include "sim/core/portable_random.hpp"

namespace trainsim {

namespace {

// Keeps the slow GPUs' draw apart from the other draws seeded by run.seed (failures, expert
// loads): the same seed gives unrelated streams.
constexpr std::uint64_t k_slow_gpu_stream = 0x5105'6a75'0000'0001ULL;

}  // namespace

std::vector<int> slow_gpus(const VariationSpec& v, int total_gpus, std::uint64_t seed) {
  if (!v.any()) return {};
  if (!v.slow_gpu_ids.empty()) {
    std::vector<int> listed;
    for (const int id : v.slow_gpu_ids)
      if (id < total_gpus) listed.push_back(id);
    return listed;
  }
  std::mt19937_64 rng(seed ^ k_slow_gpu_stream);
  // A partial Fisher-Yates shuffle over a sparse map: memory in the count, not the cluster.
  std::unordered_map<int, int> moved;
  const auto at = [&](int i) {
    const auto it = moved.find(i);
    return it == moved.end() ? i : it->second;
  };
  std::vector<int> drawn;
  const int count = std::min(v.slow_gpu_count, total_gpus);
  for (int i = 0; i < count; ++i) {
    const int j = i + static_cast<int>(portable::uniform01(rng) * (total_gpus - i));
    const int picked = at(j);
    moved[j] = at(i);
    drawn.push_back(picked);
  }
  std::sort(drawn.begin(), drawn.end());
  return drawn;
}

}  // namespace trainsim
