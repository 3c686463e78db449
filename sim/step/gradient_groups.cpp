#include "sim/step/gradient_groups.hpp"

#include <algorithm>

namespace trainsim {

std::vector<int> gradient_group(const RankMapping& mapping, const ParallelSpec& par, int rank, bool experts,
                                GradientScope scope) {
  std::vector<int> whole;
  for (const int cp_rank : mapping.group_of(rank, GroupAxis::cp))
    for (const int r : mapping.group_of(cp_rank, GroupAxis::dp)) whole.push_back(r);
  std::sort(whole.begin(), whole.end());
  const int shard = par.hybrid_sharding() ? par.zero_shard_size : static_cast<int>(whole.size());
  const int own = static_cast<int>(std::find(whole.begin(), whole.end(), rank) - whole.begin());
  const int own_expert_index = mapping.coordinate(rank, ParallelAxis::dp) % par.ep;
  std::vector<int> group;
  for (int i = 0; i < static_cast<int>(whole.size()); ++i) {
    const int r = whole[static_cast<size_t>(i)];
    if (experts && mapping.coordinate(r, ParallelAxis::dp) % par.ep != own_expert_index) continue;
    if (scope == GradientScope::shard && i / shard != own / shard) continue;
    if (scope == GradientScope::replicas && i % shard != own % shard) continue;
    group.push_back(r);
  }
  return group;
}

}  // namespace trainsim
