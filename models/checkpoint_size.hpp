#pragma once
// What a training checkpoint holds, and how large it is: the model weights, the optimizer
// states (fp32 master copy and moments), and the small states a restart needs (RNG,
// scheduler, data cursor, loss scale, layout metadata).

#include "models/model_spec.hpp"
#include "models/parallel_spec.hpp"
#include "models/training_spec.hpp"

namespace trainsim {

struct CheckpointSize {
  double total_bytes = 0;          ///< the whole checkpoint, all shards
  double largest_shard_bytes = 0;  ///< the largest one rank writes
  int shards = 0;                  ///< ranks that write a shard
};

/// Bytes per parameter: the weights in the training precision plus the optimizer states
/// (12 for mixed-precision Adam: fp32 master, momentum, variance; ZeRO §3.1): 14 for bf16
/// Adam, as BLOOM-176B's 2.3 TB (13.1 B/param) and Megatron-LM 1T's 13.8 TB (13.8 B/param)
/// show (public.md E2, E3). Gradients are not saved.
/// Each (tp, pp) rank's weights are written once (by data-parallel rank 0); optimizer states
/// by every rank that holds a ZeRO shard of them.
CheckpointSize checkpoint_size(const ModelSpec& model, const TrainingSpec& training, const ParallelSpec& parallel);

}  // namespace trainsim
