#include "models/checkpoint_size.hpp"

#include <algorithm>

#include "models/memory_budget.hpp"
#include "models/model_state_memory.hpp"
#include "models/stage_parameters.hpp"

namespace trainsim {

std::vector<StageCheckpoint> stage_checkpoints(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& par) {
  const StateBytesPerParameter per = state_bytes_per_parameter(tr);
  const std::vector<ModelChunk> chunks = balanced_chunks(m, par);
  std::vector<StageCheckpoint> stages;
  for (int stage = 0; stage < par.pp; ++stage) {
    const StageParameters p = stage_parameters(m, par, stage, rank_chunks(chunks, par, stage));
    const double params = p.dense + p.expert;  // per (tp, pp) rank
    stages.push_back({params * per.weights, params * per.optimizer, par.dense_shard_ranks()});
  }
  return stages;
}

CheckpointSize checkpoint_size(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& par) {
  CheckpointSize size;
  for (const StageCheckpoint& st : stage_checkpoints(m, tr, par)) {
    // tp ranks of this stage; each writes its weights once and its optimizer shards.
    size.total_bytes +=
        par.tp * (st.weights_bytes + st.optimizer_bytes + st.optimizer_shards * k_checkpoint_small_states_bytes);
    const double shard = st.weights_bytes + st.optimizer_bytes / st.optimizer_shards + k_checkpoint_small_states_bytes;
    size.largest_shard_bytes = std::max(size.largest_shard_bytes, shard);
    size.shards = par.tp * par.pp * st.optimizer_shards;
  }
  return size;
}

}  // namespace trainsim
