#pragma once
// MoE token permutation as the GPU runs it: kernels that move whole token rows through an
// index map (Transformer Engine's moe_permute, moe_unpermute and moe_sort_chunks_by_index,
// which Megatron-Core's token dispatchers call with moe_permute_fusion), timed at the rate
// row movers are measured to reach, not at a streaming kernel's.
#include "models/op.hpp"

namespace trainsim {

/// The fraction of the GPU's datasheet HBM bandwidth a row-moving kernel reaches on `op`'s
/// bytes, or 0 where `op` is not one (every dense op, and the fixed-shape reshape of padded
/// expert inputs, a strided copy of whole chunks).
double row_gather_bandwidth_fraction(const Op& op);

/// `op`'s time: `streaming_s` (its bytes at the streaming rate that times other memory-bound
/// ops) for an op that moves no rows through a map; for one that does, the longer of that and
/// its bytes at its measured fraction of `hbm_Bps`.
double row_gather_time_s(const Op& op, double streaming_s, double hbm_Bps);

}  // namespace trainsim
