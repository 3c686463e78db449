#include "models/memory_budget.hpp"

#include <algorithm>

#include "models/activation_memory.hpp"
#include "models/layer_cost.hpp"
#include "models/layer_kinds.hpp"
#include "models/model_state_memory.hpp"
#include "models/moe_dispatch.hpp"
#include "models/original_input_casts.hpp"
#include "models/parameter_count.hpp"
#include "models/pipeline_inflight.hpp"
#include "models/stage_parameters.hpp"

namespace trainsim {

namespace {

MemoryBreakdown model_states(const StageParameters& p, const TrainingSpec& tr, const ParallelSpec& par,
                             double& offloaded) {
  const StateBytesPerParameter per = state_bytes_per_parameter(tr);
  const ModelStateBytes dense = model_state_bytes(p.dense, per, par.zero, par.dense_shard_ranks());
  const ModelStateBytes expert = model_state_bytes(p.expert, per, par.zero, par.expert_shard_ranks());
  MemoryBreakdown b;
  b.weights = dense.weights + expert.weights;
  b.gradients = dense.gradients + expert.gradients;
  b.optimizer_states = dense.optimizer_states + expert.optimizer_states;
  offloaded = 0;
  if (tr.offload == Offload::cpu) {
    // ZeRO-Offload (Ren et al. 2021) keeps optimizer states on the host; with ZeRO-2 the
    // reduced gradient shards go there too; ZeRO-Infinity with stage 3 also the weights.
    offloaded += b.optimizer_states;
    b.optimizer_states = 0;
    if (par.zero >= 2) {
      offloaded += b.gradients;
      b.gradients = 0;
    }
    if (par.zero >= 3) {
      offloaded += b.weights;
      b.weights = 0;
    }
  }
  return b;
}

double activation_element_scale(Precision precision) {
  // Korthikanti et al. count 16-bit activations; fp32 training stores 4-byte ones.
  return precision == Precision::fp32 ? 2.0 : 1.0;
}

double comm_buffer_bytes(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& par,
                         const StageParameters& p) {
  const double element = 2.0 * activation_element_scale(tr.precision);
  const double tokens = static_cast<double>(m.seq_len) / par.cp * tr.micro_batch;
  const StateBytesPerParameter per = state_bytes_per_parameter(tr);
  double bytes = 0;
  if (par.megatron_fsdp()) {
    // fsdp_double_buffer: two units' gathered parameters (ZeRO-3) and two units' unsharded
    // gradients waiting for their reduce-scatter, in place of the DDP buckets
    // (megatron/core/distributed/fsdp/src/README.md @ 00611e6e).
    if (par.zero >= 3) bytes += 2.0 * p.per_layer_on_gpu * per.weights;
    if (par.gradient_group() > 1) bytes += 2.0 * p.per_layer_on_gpu * per.gradients;
  } else {
    if (par.gradient_group() > 1) bytes += 2.0 * tr.dp_bucket_bytes;     // bucket being reduced + next
    if (par.zero >= 3) bytes += 2.0 * p.per_layer_on_gpu * per.weights;  // gathered layer + prefetched one
  }
  if (par.tp > 1 && par.sequence_parallel) bytes += tokens * m.hidden * element;  // SP all-gather output
  // Pipeline send and receive: with SP each rank passes its sequence shard (Megatron-Core's
  // schedules.py get_tensor_shapes divides the sequence by the TP size); without, the
  // received tensor is whole.
  if (par.pp > 1) bytes += 2.0 * tokens * m.hidden * element / (par.sequence_parallel ? par.tp : 1);
  if (par.cp > 1)  // ring attention: K and V blocks being used and being received
    bytes += m.is_mla() ? 2.0 * tokens * m.kv_width() * element / par.tp
                        : 2.0 * 2.0 * tokens * m.kv_heads * m.head_dim() * element / par.tp;
  // All-to-all dispatch and combine buffers: the rows each token is sent as, top_k under the
  // alltoall dispatcher, its destination ranks under DeepEP and HybridEP (moe_dispatch.hpp).
  if (par.ep > 1) bytes += 2.0 * tokens * dispatched_rows_per_token(m, par) * m.hidden * element;
  return bytes;
}

ActivationLayout activation_layout(const TrainingSpec& tr, const ParallelSpec& par) {
  ActivationLayout layout;
  layout.micro_batch = tr.micro_batch;
  layout.tp = par.tp;
  layout.cp = par.cp;
  layout.sequence_parallel = par.sequence_parallel;
  layout.recompute = tr.recompute;
  layout.attention = tr.attention;
  layout.fused_cross_entropy = tr.fused_cross_entropy;
  if (is_quantized(tr.precision)) layout.gemm_input_bytes = quantized_element_bytes(tr.precision);
  layout.projection_saves_original_input = projection_saves_original_input(tr);
  return layout;
}

// Each layer of `chunks` in order with the bytes it keeps for one micro-batch (in 16-bit
// elements: activation_element_scale converts). With full recomputation of some layers per
// chunk (recompute_layers), the chunk's first ones are recomputed (Megatron-LM's block
// recompute method): they keep only their input, the others everything. Each run of layers
// of one kind (dense and MoE, windowed and full: layer_kinds.hpp) at its kind's size.
template <typename Visit>
void for_each_layer(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& par,
                    const std::vector<ModelChunk>& chunks, Visit visit) {
  const ActivationLayout layout = activation_layout(tr, par);
  ActivationLayout kept = layout;
  kept.recompute = Recompute::none;
  for (size_t chunk = 0; chunk < chunks.size(); ++chunk) {
    const ModelChunk& c = chunks[chunk];
    const int again = tr.recompute == Recompute::full ? recomputed_layers(tr, c.layers) : c.layers;
    int before = 0;
    for (const LayerRun& r : layer_runs(m, c.first_layer, c.layers)) {
      const int recomputed = std::clamp(again - before, 0, r.count);
      const double recomputed_bytes = layer_activation_bytes(r.layer, layout);
      const double kept_bytes = layer_activation_bytes(r.layer, kept);
      for (int i = 0; i < r.count; ++i) visit(chunk, r.layer, i < recomputed ? recomputed_bytes : kept_bytes);
      before += r.count;
    }
  }
}

// The stage's activations held on the GPU at `inflight` micro-batches (and, through
// `offloaded`, those in host memory).
double activation_bytes(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& par, int stage,
                        const std::vector<ModelChunk>& chunks, double inflight, double& offloaded) {
  const ActivationLayout layout = activation_layout(tr, par);
  ActivationLayout kept = layout;
  kept.recompute = Recompute::none;
  double layer_bytes = 0, offloaded_bytes = 0, largest_offloaded = 0;
  double working = 0;  // full recompute: the layer run again holds all of its activations
  int index = 0;
  for_each_layer(m, tr, par, chunks, [&](size_t, const ModelSpec& layer, double bytes) {
    if (index++ < tr.offload_activations) {
      offloaded_bytes += bytes;
      largest_offloaded = std::max(largest_offloaded, bytes);
    } else {
      layer_bytes += bytes;
    }
    working = std::max(working, recompute_working_bytes(layer, layout));
  });
  // Transformer Engine's offload handler double-buffers (cpu_offload_v1.py,
  // AsyncDoubleBufferGroupOffloadHandler): a layer's activations stay on the GPU while
  // they are copied out and the next layer computes, and one layer is reloaded ahead of the
  // backward that needs it: two offloaded layers' worth at most. Those two are on the GPU
  // while the micro-batch's offloaded (first) layers run, before its kept layers have
  // stored anything in the forward and after they have freed theirs in the backward: the
  // newest micro-batch holds the larger of the two, the others in flight their kept layers.
  const double buffers = offloaded_bytes > 0 ? 2.0 * largest_offloaded : 0.0;
  double bytes = std::max(inflight - 1.0, 0.0) * layer_bytes + std::max(layer_bytes, buffers) + working;
  offloaded = inflight * offloaded_bytes * activation_element_scale(tr.precision);
  // DualPipe's end ranks each hold the first stage and the last (mirrored_chunks_of_stage).
  const bool ends = par.schedule == Schedule::dualpipe && (stage == 0 || stage == par.pp - 1);
  if (stage == 0 || ends) bytes += inflight * embedding_activation_bytes(m, layout);
  if (stage == par.pp - 1 || ends) bytes += inflight * output_activation_bytes(m, layout);
  // Multi-token prediction (DeepSeek-V3 §2.2), on the stage whose chunk runs the modules:
  // each module's layer (kept whole) and its own output head's inputs and logits, plus its
  // projection's 2h input.
  int mtp = 0;
  for (const ModelChunk& c : chunks) mtp += c.mtp_layers;
  if (mtp > 0) {
    const ModelSpec last = layer_spec(m, m.layers - 1);
    const double tokens = static_cast<double>(m.seq_len) / par.cp * tr.micro_batch;
    const double proj_input = 2.0 * 2.0 * tokens * m.hidden / (par.sequence_parallel ? par.tp : 1);
    bytes += inflight * mtp * (layer_activation_bytes(last, kept) + output_activation_bytes(m, layout) + proj_input);
  }
  return bytes * activation_element_scale(tr.precision);
}

}  // namespace

bool MemoryReport::fits() const {
  return std::all_of(stages.begin(), stages.end(), [](const StageMemory& s) { return s.fits(); });
}

const StageMemory& MemoryReport::peak_stage() const {
  return *std::max_element(stages.begin(), stages.end(), [](const StageMemory& a, const StageMemory& b) {
    return a.bytes.total() < b.bytes.total();
  });
}

std::vector<std::vector<double>> offloaded_layer_bytes(const ModelSpec& m, const TrainingSpec& tr,
                                                       const ParallelSpec& par,
                                                       const std::vector<ModelChunk>& chunks) {
  std::vector<std::vector<double>> bytes(chunks.size());
  int index = 0;
  for_each_layer(m, tr, par, chunks, [&](size_t chunk, const ModelSpec&, double b) {
    if (index++ < tr.offload_activations) bytes[chunk].push_back(b * activation_element_scale(tr.precision));
  });
  return bytes;
}

namespace {

// The chunks parallel.stage_split gives.
std::vector<ModelChunk> split_chunks(const ModelSpec& m, const ParallelSpec& par) {
  if (par.stage_split != StageSplit::cost)
    return even_layers(m.layers, par.pp * par.virtual_stages, par.stage_split == StageSplit::even_with_ends);
  std::vector<double> costs(static_cast<size_t>(m.layers));
  for (int i = 0; i < m.layers; ++i) costs[static_cast<size_t>(i)] = layer_forward_flops_per_token(layer_spec(m, i));
  // The embedding is a lookup: no FLOPs worth balancing.
  double output_cost = output_forward_flops_per_token(m);
  if (m.mtp_depth > 0)  // the modules run on the last chunk: their layer, projection and output head
    output_cost += m.mtp_depth * (layer_forward_flops_per_token(layer_spec(m, m.layers - 1)) +
                                  4.0 * static_cast<double>(m.hidden) * m.hidden + output_forward_flops_per_token(m));
  return partition_layers(costs, par.pp * par.virtual_stages, 0.0, output_cost);
}

}  // namespace

std::vector<ModelChunk> balanced_chunks(const ModelSpec& m, const ParallelSpec& par) {
  if (!par.pipeline_layout.empty()) return layout_chunks(par.pipeline_layout);
  std::vector<ModelChunk> chunks = split_chunks(m, par);
  chunks.back().mtp_layers = m.mtp_depth;  // the modules run on the last chunk
  return chunks;
}

std::vector<ModelChunk> rank_chunks(const std::vector<ModelChunk>& chunks, const ParallelSpec& par, int stage) {
  if (par.schedule == Schedule::dualpipe) return mirrored_chunks_of_stage(chunks, stage);
  return chunks_of_stage(chunks, par.pp, stage);
}

MemoryReport estimate_memory(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& par,
                             double capacity_bytes) {
  MemoryReport report;
  report.parameters = total_parameters(m);
  report.global_batch_samples = static_cast<double>(tr.micro_batch) * tr.grad_accum * par.dp;
  report.tokens_per_step = report.global_batch_samples * m.seq_len;
  report.capacity_bytes = capacity_bytes;

  const std::vector<ModelChunk> chunks = balanced_chunks(m, par);
  for (int stage = 0; stage < par.pp; ++stage) {
    StageMemory s;
    s.stage = stage;
    const std::vector<ModelChunk> own = rank_chunks(chunks, par, stage);
    for (const ModelChunk& c : own) s.layers += c.layers;
    const StageParameters params = stage_parameters(m, par, stage, own);
    s.parameters_per_gpu = params.dense + params.expert;
    s.inflight_microbatches = inflight_microbatches(par.schedule, par.pp, stage, tr.grad_accum, par.virtual_stages,
                                                    par.microbatch_group, par.extra_warmup_chunks());
    s.bytes = model_states(params, tr, par, s.offloaded_bytes);
    s.bytes.activations =
        activation_bytes(m, tr, par, stage, own, s.inflight_microbatches, s.offloaded_activation_bytes);
    s.offloaded_bytes += s.offloaded_activation_bytes;
    s.bytes.comm_buffers = comm_buffer_bytes(m, tr, par, params);
    s.bytes.framework = tr.framework_bytes;
    s.bytes.fragmentation = tr.fragmentation_fraction * (s.bytes.total() - s.bytes.framework);
    s.capacity_bytes = capacity_bytes;
    report.stages.push_back(s);
  }
  return report;
}

}  // namespace trainsim
