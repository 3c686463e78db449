#pragma once
// Which global sample indices each data-parallel rank trains on, and the loader position a
// checkpoint saves (the data cursor). The two samplers of checkpoint.sampler
// (sim/run/run_spec.hpp):
// - global (Megatron-LM's MegatronPretrainingSampler): the cursor is the count of consumed
//   samples; micro-batch m of a step is the next micro_batch x dp samples, rank r taking the
//   r-th micro_batch of them. Any data-parallel size resumes exactly.
// - per_rank (PyTorch's DistributedSampler, no shuffle): rank r owns samples r, r + dp,
//   r + 2 dp, ...; the cursor is each rank's offset k into its own shard. Resumed at another
//   dp', rank r' reads k dp' + r' on: samples are re-read (dp' < dp) or skipped (dp' > dp),
//   the position scaled by dp'/dp as sim/run/data_cursor.hpp's resized() counts it.

#include <vector>

#include "sim/drill/drill_spec.hpp"

namespace trainsim::drill {

struct SamplerCursor {
  long long consumed = 0;     ///< global sampler: samples consumed
  long long rank_offset = 0;  ///< per-rank sampler: samples each rank has read of its shard
  bool operator==(const SamplerCursor&) const = default;
};

/// The samples of one step: [rank][micro-batch] -> global indices (micro_batch of them).
using StepSamples = std::vector<std::vector<std::vector<long long>>>;

/// The step's samples under `layout`, and the cursor advanced past them.
StepSamples next_step_samples(DataSampler sampler, const Layout& layout, SamplerCursor& cursor);

}  // namespace trainsim::drill
