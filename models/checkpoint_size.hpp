#pragma once
// What a training checkpoint holds, and how large it is: the model weights, the optimizer
// states (fp32 master copy and moments), and the small states a restart needs (RNG,
// scheduler, data cursor, loss scale, layout metadata).

#include <vector>

#include "models/model_spec.hpp"
#include "models/parallel_spec.hpp"
#include "models/training_spec.hpp"

namespace trainsim {

struct CheckpointSize {
  double total_bytes = 0;          ///< the whole checkpoint, all shards
  double largest_shard_bytes = 0;  ///< the largest one rank writes
  int shards = 0;                  ///< ranks that write a shard
};

/// What one (tp, pp) rank of a pipeline stage holds: weights written by its first
/// data-parallel rank, optimizer states split over `optimizer_shards` ranks (ZeRO >= 1: the
/// gradient group; else 1, written by the first).
struct StageCheckpoint {
  double weights_bytes = 0;
  double optimizer_bytes = 0;
  int optimizer_shards = 1;
};

/// Per pipeline stage (see checkpoint_size for the bytes per parameter).
std::vector<StageCheckpoint> stage_checkpoints(const ModelSpec& model, const TrainingSpec& training,
                                               const ParallelSpec& parallel);

/// RNG states, scheduler, data cursor, loss scale and layout metadata: per shard-writing rank.
inline constexpr double k_checkpoint_small_states_bytes = 64.0 * 1024;

/// Bytes per parameter: the weights in the training precision plus the optimizer states
/// (12 for mixed-precision Adam: fp32 master, momentum, variance; ZeRO §3.1): 14 for bf16
/// Adam, as BLOOM-176B's 2.3 TB (13.1 B/param) and Megatron-LM 1T's 13.8 TB (13.8 B/param)
/// show (public.md E2, E3). Gradients are not saved.
/// Each (tp, pp) rank's weights are written once (by data-parallel rank 0); optimizer states
/// by every rank that holds a ZeRO shard of them.
CheckpointSize checkpoint_size(const ModelSpec& model, const TrainingSpec& training, const ParallelSpec& parallel);

}  // namespace trainsim
