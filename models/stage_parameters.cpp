#include "models/stage_parameters.hpp"

#include <algorithm>

#include "models/layer_kinds.hpp"
#include "models/parameter_count.hpp"

namespace trainsim {

namespace {

struct LayerShare {
  double dense = 0;
  double expert = 0;
};

// One layer of kind `l` on one GPU: routed experts split over expert_tp x ep ranks, the
// rest over tp.
LayerShare layer_share(const ModelSpec& l, const ParallelSpec& par) {
  const ParameterCounts pc = count_parameters(l);
  const double tp = par.tp;
  const double dense_layer = pc.attention_per_layer / tp + pc.norms_per_layer + pc.router_per_layer +
                             pc.attention_replicated_per_layer + pc.shared_mlp_per_layer / tp;
  if (l.is_moe()) return {dense_layer, pc.mlp_per_layer / (static_cast<double>(par.expert_tp_size()) * par.ep)};
  return {dense_layer + pc.mlp_per_layer / tp, 0.0};
}

void add_layers(StageParameters& p, const LayerShare& share, int count) {
  p.dense += count * share.dense;
  p.expert += count * share.expert;
  p.per_layer_on_gpu = std::max(p.per_layer_on_gpu, share.dense + share.expert);
  p.layers_on_gpu += count * (share.dense + share.expert);
}

}  // namespace

StageParameters stage_parameters(const ModelSpec& m, const ParallelSpec& par, int stage,
                                 const std::vector<ModelChunk>& chunks) {
  std::vector<LayerRun> runs;
  for (const ModelChunk& c : chunks) {
    const std::vector<LayerRun> own = layer_runs(m, c.first_layer, c.layers);
    runs.insert(runs.end(), own.begin(), own.end());
  }
  StageParameters p;
  for (const LayerKindCount& k : count_kinds(runs)) add_layers(p, layer_share(k.layer, par), k.count);
  const ParameterCounts pc = count_parameters(m);
  const double tp = par.tp;
  // DualPipe's end ranks each hold the first stage and the last (mirrored_chunks_of_stage).
  const bool mirrored = par.schedule == Schedule::dualpipe;
  const bool first = stage == 0 || (mirrored && stage == par.pp - 1);
  const bool last = stage == par.pp - 1 || (mirrored && stage == 0);
  if (first) p.dense += pc.embedding / tp + pc.positions;
  if (last) {
    p.dense += pc.final_norm;
    if (!m.tied_embeddings)
      p.dense += pc.output / tp;
    else if (par.pp > 1)
      p.dense += pc.embedding / tp;
  }
  int mtp = 0;  // the last stage's unless parallel.pipeline_layout places them elsewhere
  for (const ModelChunk& c : chunks) mtp += c.mtp_layers;
  if (mtp > 0) {
    // Each module: its own layer (the last layer's kind), projection (split over TP) and norms.
    add_layers(p, layer_share(layer_spec(m, m.layers - 1), par), mtp);
    p.dense += mtp * (2.0 * m.hidden * m.hidden / tp + (pc.mtp_extra_per_module - 2.0 * m.hidden * m.hidden));
    // The first stage holds the embedding the modules read; another stage keeps a copy.
    if (!first) p.dense += pc.embedding / tp;
    // A stage other than the last runs the shared output head for its modules: its own copy
    // (a tied head is the embedding copy above).
    if (!last && !m.tied_embeddings) p.dense += pc.output / tp;
  }
  return p;
}

}  // namespace trainsim
