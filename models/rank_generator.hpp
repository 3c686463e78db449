#pragma once
// The sizes Megatron-Core's two rank generators give each axis of the order string
// (initialize_model_parallel in megatron/core/parallel_state.py, NVIDIA/Megatron-LM @
// d98e8a64ddf34856e74b24714e3bedb2f5a39553): the dense generator with ep of size 1, the
// expert one with cp of size 1, expert_tp at tp's place and the expert data parallelism at
// dp's. models/rank_order.hpp checks the order against them; topologies/rank_mapping.hpp
// places the ranks with them.

#include "models/parallel_spec.hpp"

namespace trainsim {

/// The axis' size for the dense layers (tp, cp, pp, dp; 1 for ep).
int dense_axis_size(const ParallelSpec& p, ParallelAxis axis);
/// The axis' size for the expert layers (expert_tp, 1 for cp, pp, expert data parallel, ep).
int expert_axis_size(const ParallelSpec& p, ParallelAxis axis);

}  // namespace trainsim
