#include "sim/step/gradient_groups.hpp"

#include <algorithm>

namespace trainsim {

namespace {

// The shard groups tile the ranks in blocks of `block` consecutive indices: `shard` keeps
// the ranks of the own block, `replicas` those at the own position in every block.
bool in_scope(int index, int own, int block, GradientScope scope) {
  if (scope == GradientScope::shard) return index / block == own / block;
  if (scope == GradientScope::replicas) return index % block == own % block;
  return true;
}

}  // namespace

std::vector<int> gradient_group(const RankMapping& mapping, const ParallelSpec& par, int rank, bool experts,
                                GradientScope scope) {
  std::vector<int> group;
  if (experts) {
    // The expert-data-parallel group, by stage index; a dense shard group of S ranks spans
    // S x tp stage indices (the tp ranks beside each), so its expert shard is a block of them.
    const int block = par.hybrid_sharding() ? par.zero_shard_size * par.tp : par.stage_ranks();
    const int own = mapping.stage_index(rank);
    for (const int r : mapping.group_of(rank, GroupAxis::edp))
      if (in_scope(mapping.stage_index(r), own, block, scope)) group.push_back(r);
    return group;
  }
  std::vector<int> whole;
  for (const int cp_rank : mapping.group_of(rank, GroupAxis::cp))
    for (const int r : mapping.group_of(cp_rank, GroupAxis::dp)) whole.push_back(r);
  std::sort(whole.begin(), whole.end());
  const int shard = par.hybrid_sharding() ? par.zero_shard_size : static_cast<int>(whole.size());
  const int own = static_cast<int>(std::find(whole.begin(), whole.end(), rank) - whole.begin());
  for (int i = 0; i < static_cast<int>(whole.size()); ++i)
    if (in_scope(i, own, shard, scope)) group.push_back(whole[static_cast<size_t>(i)]);
  return group;
}

}  // namespace trainsim
