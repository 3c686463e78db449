#pragma once
// The parameters one GPU of a pipeline rank holds, split by the group that shards them.

#include <vector>

#include "models/model_spec.hpp"
#include "models/parallel_spec.hpp"
#include "models/stage_partition.hpp"

namespace trainsim {

struct StageParameters {
  double dense = 0;             ///< replicated over the dp x cp gradient group
  double expert = 0;            ///< MoE experts: replicated over dp x cp / ep ranks
  double per_layer_on_gpu = 0;  ///< the largest of its layers' parameters on this GPU (ZeRO-3 gathers)
  double layers_on_gpu = 0;     ///< all its transformer layers' parameters on this GPU
};

/// Parameters on one GPU of pipeline rank `stage` running model chunks `chunks` (layer
/// kinds counted one by one: models/layer_kinds.hpp).
/// Megatron-LM splits the linear layers over TP and replicates the norms and the router;
/// experts split over TP x EP (shared experts over TP only); the first stage holds the
/// embedding, the last the final norm, the output layer (a tied one keeps its own copy of the
/// embedding when pp > 1); the chunks' multi-token prediction modules (the last stage's
/// unless a pipeline layout places them), with copies of the embedding and output head.
StageParameters stage_parameters(const ModelSpec& model, const ParallelSpec& parallel, int stage,
                                 const std::vector<ModelChunk>& chunks);

}  // namespace trainsim
