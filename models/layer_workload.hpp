#pragma once
// The ops of a transformer model on one GPU, per micro-batch, with tensor, sequence,
// context and expert parallelism applied (Megatron-LM's layout: Shoeybi et al. 2019 §3;
// Korthikanti et al. 2022 §4.2.2 for sequence parallelism).

#include <vector>

#include "models/model_spec.hpp"
#include "models/op.hpp"
#include "models/op_queries.hpp"
#include "models/parallel_spec.hpp"
#include "models/training_spec.hpp"

namespace trainsim {

/// One pass of a layer (or of the embedding / output part) as ops in execution order.
struct PassOps {
  std::vector<Op> forward;
  std::vector<Op> recompute;  ///< forward work repeated before backward (recompute policy)
  std::vector<Op> backward;   ///< input gradients, then weight gradients per op
};

/// One transformer layer on one GPU for one micro-batch.
/// Forward FLOPs of a GPT layer (MHA, GeLU 4h) sum to 24 b s h^2 + 4 b s^2 h, without
/// parallelism (Narayanan et al. SC21, the basis of eq. 3); backward counts twice that.
/// `bf16_linears`: one of the layers first_last_layers_bf16 keeps in bf16 (TrainingSpec): its
/// linear GEMMs in bf16, uncast, whatever training.precision.
PassOps transformer_layer_ops(const ModelSpec& model, const TrainingSpec& training, const ParallelSpec& parallel,
                              bool bf16_linears = false);

/// The embedding lookup (first stage).
PassOps embedding_ops(const ModelSpec& model, const TrainingSpec& training, const ParallelSpec& parallel);

/// Final norm, logits (2 b s h V forward) and the cross-entropy loss (last stage).
PassOps output_ops(const ModelSpec& model, const TrainingSpec& training, const ParallelSpec& parallel);

/// One multi-token prediction module's own ops before its transformer layer (DeepSeek-V3
/// §2.2, eq. 21): the two RMSNorms of the previous depth's hidden state and of the shifted
/// token's embedding, and their concatenation projected 2h -> h (split over TP by columns).
/// The module's layer and output head are a transformer layer and output_ops.
PassOps mtp_projection_ops(const ModelSpec& model, const TrainingSpec& training, const ParallelSpec& parallel);

/// The optimizer update of `parameters` parameters (already divided by ZeRO sharding).
Op optimizer_op(double parameters, const TrainingSpec& training);

}  // namespace trainsim
