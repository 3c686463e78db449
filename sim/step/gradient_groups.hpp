#pragma once
// The ranks a gradient reduction or a ZeRO gather runs over: the whole data-parallel x
// context-parallel group, or, under hybrid sharding (HSDP), a shard group or the replicas of
// one shard across the shard groups.

#include <vector>

#include "models/parallel_spec.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim {

/// whole: every rank of the gradient group; shard: the zero_shard_size consecutive ranks of
/// the (sorted) group that hold one copy of the sharded states; replicas: the ranks that
/// hold the same shard in every shard group (PyTorch FSDP HYBRID_SHARD's inter-node group).
enum class GradientScope { whole, shard, replicas };

/// The gradient-reduction group of `rank`: its data-parallel ranks across every context-
/// parallel rank (Megatron-LM's data-parallel group with context parallelism), or, for
/// experts, its expert-data-parallel group (GroupAxis::edp); narrowed to `scope`. Ascending.
std::vector<int> gradient_group(const RankMapping& mapping, const ParallelSpec& par, int rank, bool experts,
                                GradientScope scope = GradientScope::whole);

}  // namespace trainsim
