#include "models/checkpoint_size.hpp"

#include <algorithm>

#include "models/memory_budget.hpp"
#include "models/model_state_memory.hpp"
#include "models/stage_parameters.hpp"

namespace trainsim {

namespace {
// RNG states, scheduler, data cursor, loss scale and layout metadata: kilobytes per rank.
constexpr double k_small_states_bytes = 64.0 * 1024;
}  // namespace

CheckpointSize checkpoint_size(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& par) {
  const StateBytesPerParameter per = state_bytes_per_parameter(tr.precision, tr.optimizer);
  const std::vector<ModelChunk> chunks = balanced_chunks(m, par);
  const int group = par.gradient_group();
  const int optimizer_shards = par.zero >= 1 ? group : 1;
  CheckpointSize size;
  for (int stage = 0; stage < par.pp; ++stage) {
    int layers = 0;
    for (const ModelChunk& c : chunks_of_stage(chunks, par.pp, stage)) layers += c.layers;
    const StageParameters p = stage_parameters(m, par, stage, layers);
    const double params = p.dense + p.expert;  // per (tp, pp) rank
    const double weights = params * per.weights;
    const double optimizer = params * per.optimizer;
    // tp ranks of this stage; each writes its weights once and its optimizer shards.
    size.total_bytes += par.tp * (weights + optimizer + optimizer_shards * k_small_states_bytes);
    const double shard = weights + optimizer / optimizer_shards + k_small_states_bytes;
    size.largest_shard_bytes = std::max(size.largest_shard_bytes, shard);
  }
  size.shards = par.tp * par.pp * optimizer_shards;
  return size;
}

}  // namespace trainsim
