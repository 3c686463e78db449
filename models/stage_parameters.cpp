#include "models/stage_parameters.hpp"

#include "models/parameter_count.hpp"

namespace trainsim {

StageParameters stage_parameters(const ModelSpec& m, const ParallelSpec& par, int stage, int layers) {
  const ParameterCounts pc = count_parameters(m);
  const double tp = par.tp;
  StageParameters p;
  const double dense_layer = pc.attention_per_layer / tp + pc.norms_per_layer + pc.router_per_layer;
  const double mlp_layer = pc.mlp_per_layer / (tp * (m.is_moe() ? par.ep : 1));
  p.dense = layers * dense_layer;
  if (m.is_moe())
    p.expert = layers * mlp_layer;
  else
    p.dense += layers * mlp_layer;
  p.per_layer_on_gpu = dense_layer + mlp_layer;
  if (stage == 0) p.dense += pc.embedding / tp + pc.positions;
  if (stage == par.pp - 1) {
    p.dense += pc.final_norm;
    if (!m.tied_embeddings)
      p.dense += pc.output / tp;
    else if (par.pp > 1)
      p.dense += pc.embedding / tp;
  }
  return p;
}

}  // namespace trainsim
