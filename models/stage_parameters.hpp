#pragma once
// The parameters one GPU of a pipeline rank holds, split by the group that shards them.

#include "models/model_spec.hpp"
#include "models/parallel_spec.hpp"

namespace trainsim {

struct StageParameters {
  double dense = 0;             ///< replicated over the dp x cp gradient group
  double expert = 0;            ///< MoE experts: replicated over dp x cp / ep ranks
  double per_layer_on_gpu = 0;  ///< one layer's parameters on this GPU (ZeRO-3 gathers)
};

/// Parameters on one GPU of pipeline rank `stage` holding `layers` transformer layers.
/// Megatron-LM splits the linear layers over TP and replicates the norms and the router;
/// experts split over TP x EP; the first stage holds the embedding, the last the final norm
/// and the output layer (a tied one keeps its own copy of the embedding when pp > 1).
StageParameters stage_parameters(const ModelSpec& model, const ParallelSpec& parallel, int stage, int layers);

}  // namespace trainsim
