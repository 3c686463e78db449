#pragma once
// The per-GPU memory budget of a training configuration, stage by stage: what
// `trainsim memory` prints. Composes parameter counts, ZeRO model states,
// Korthikanti activations and the pipeline schedule's in-flight micro-batches.

#include <vector>

#include "models/model_spec.hpp"
#include "models/parallel_spec.hpp"
#include "models/stage_partition.hpp"
#include "models/training_spec.hpp"

namespace trainsim {

/// Bytes per GPU by category.
struct MemoryBreakdown {
  double weights = 0;
  double gradients = 0;
  double optimizer_states = 0;
  double activations = 0;
  double comm_buffers = 0;   ///< DP buckets, ZeRO-3 gathered layers, SP/PP/CP/EP staging buffers
  double framework = 0;      ///< CUDA context, library workspaces, NCCL internals
  double fragmentation = 0;  ///< the stated allocator margin
  double total() const {
    return weights + gradients + optimizer_states + activations + comm_buffers + framework + fragmentation;
  }
};

struct StageMemory {
  int stage = 0;
  int layers = 0;                    ///< transformer layers on this pipeline rank (all its chunks)
  double parameters_per_gpu = 0;     ///< before ZeRO sharding
  double inflight_microbatches = 0;  ///< peak micro-batches of activations held
  MemoryBreakdown bytes;
  double offloaded_bytes = 0;  ///< kept in host memory: model states (offload = cpu) and activations
  double offloaded_activation_bytes = 0;  ///< of offloaded_bytes, activations (offload_activations)
  double capacity_bytes = 0;
  bool fits() const { return bytes.total() <= capacity_bytes; }
  double headroom_bytes() const { return capacity_bytes - bytes.total(); }
};

struct MemoryReport {
  double parameters = 0;            ///< the whole model
  double global_batch_samples = 0;  ///< micro_batch x grad_accum x dp (never x tp, pp or cp)
  double tokens_per_step = 0;       ///< global_batch_samples x seq_len
  double capacity_bytes = 0;
  std::vector<StageMemory> stages;  ///< one per pipeline rank
  bool fits() const;
  const StageMemory& peak_stage() const;  ///< the stage with the largest total
};

/// The memory budget on GPUs of `capacity_bytes` each. Inputs must be validated.
MemoryReport estimate_memory(const ModelSpec& model, const TrainingSpec& training, const ParallelSpec& parallel,
                             double capacity_bytes);

/// The activation bytes of one micro-batch that each offloaded layer of a stage sends to host
/// memory (training.offload_activations: the stage's first layers, chunk by chunk), per chunk
/// of `chunks` (the stage's own, in order), one entry per offloaded layer of the chunk.
std::vector<std::vector<double>> offloaded_layer_bytes(const ModelSpec& model, const TrainingSpec& training,
                                                       const ParallelSpec& parallel,
                                                       const std::vector<ModelChunk>& chunks);

/// The model's layers split into pp x virtual_stages chunks: as parallel.pipeline_layout
/// places them when it is set, otherwise by parallel.stage_split (cost: balanced by forward
/// FLOPs), the MTP layers on the last chunk. Inputs must be validated (an even split must
/// divide, a layout must fit the model and the pipeline).
std::vector<ModelChunk> balanced_chunks(const ModelSpec& model, const ParallelSpec& parallel);

/// The chunks of `chunks` (balanced_chunks) that pipeline rank `stage` holds: every pp-th
/// (chunks_of_stage), or with DualPipe its stage and the mirrored one (mirrored_chunks_of_stage).
std::vector<ModelChunk> rank_chunks(const std::vector<ModelChunk>& chunks, const ParallelSpec& parallel, int stage);

}  // namespace trainsim
