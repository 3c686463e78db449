#pragma once
// The casts into block-scaled formats (models/cast_ops.hpp) as the GPU runs them: memory-bound
// kernels over their bytes, at the bandwidth Transformer Engine's and torchao's cast kernels
// are measured to reach, not at a streaming kernel's.
#include "models/op.hpp"

namespace trainsim {

/// The fraction of the GPU's datasheet HBM bandwidth a cast into `op`'s block-scaled format
/// reaches on its bytes (MXFP8, NVFP4: an elementwise op whose Op::precision is the format it
/// writes, cast_ops.hpp), or 0 where `op` is no such cast (fp8 with a per-tensor scale, every
/// other op).
double cast_bandwidth_fraction(const Op& op);

/// `op`'s time: `other_s` (as the memory-bound ops are timed) for an op that is not such a
/// cast; for one that is, the longer of that and its bytes at its measured fraction of `hbm_Bps`.
double cast_time_s(const Op& op, double other_s, double hbm_Bps);

}  // namespace trainsim
