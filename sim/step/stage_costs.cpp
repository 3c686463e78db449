#include "sim/step/stage_costs.hpp"

#include <algorithm>
#include <deque>
#include <utility>
#include <vector>

#include "models/cast_ops.hpp"
#include "models/expert_capacity.hpp"
#include "models/expert_load.hpp"
#include "models/gradient_tensors.hpp"
#include "models/layer_kinds.hpp"
#include "models/layer_workload.hpp"
#include "models/memory_budget.hpp"
#include "models/model_state_memory.hpp"
#include "models/moe_dispatch.hpp"
#include "models/stage_parameters.hpp"
#include "models/training_spec.hpp"
#include "sim/step/dispatcher_rates.hpp"
#include "sim/step/ep_overlap_cost.hpp"
#include "sim/step/fixed_costs.hpp"
#include "sim/step/fp8_param_gather.hpp"
#include "sim/step/host_bound_pair.hpp"
#include "sim/step/host_bound_pass.hpp"
#include "sim/step/moe_layer_split.hpp"
#include "sim/step/nccl_overlap.hpp"
#include "sim/step/tp_overlap_slots.hpp"

namespace trainsim {

namespace {

using engine::CollectiveOp;

// `expert_load`: the busiest expert-parallel rank's tokens over the balanced share; `nccl`: what
// prices the ops beside NCCL's collectives (PassCost::nccl_extra_s), if anything.
void add_ops(const std::vector<Op>& ops, const ComputeModel& compute, double repeat, double expert_load, PassCost& cost,
             const NcclBeside* nccl = nullptr) {
  for (const Op& op : ops) {
    const double scale = op_load(op, expert_load);
    const double op_s = compute.time_s(op);
    const double seconds = repeat * scale * op_s;
    cost.compute_s += seconds;
    if (nccl) cost.nccl_extra_s += seconds * (nccl_op_slowdown(op, op_s, *nccl) - 1.0);
    if (is_attention_core(op)) cost.attention_s += seconds;  // what ring attention's K/V exchange overlaps
    if (op.beside_cp_exchange) cost.cp_hidden_s += seconds;
    cost.model_flops += repeat * op.model_flops;
    cost.causal_model_flops += repeat * op.causal_model_flops;
    cost.executed_flops += repeat * scale * op.flops;
    cost.executed_bytes += repeat * scale * op.bytes;
  }
}

// `layers`: the layers the `count` collectives are spread over (GroupCollective::layers).
void add_collective(PassCost& cost, CollectiveOp op, double bytes, int count, int layers,
                    CommGroup group = CommGroup::tp) {
  if (count > 0) cost.collectives.push_back({group, op, bytes, count, 0.0, layers});
}

// The MoE layers' expert collectives in one pass. Token dispatch and combine: two
// all-to-alls per layer and pass over the expert-parallel group (Lepikhin et al. 2020, GShard
// §2.2; Megatron-Core's token dispatchers), each rank sending its tokens' rows as its
// dispatcher cuts them (models/moe_dispatch.hpp: top_k copies, or one per destination rank),
// the busiest rank the most. Megatron-Core's alltoall dispatcher adds, per layer, the routing
// probabilities' all-to-all (forward, and their gradients' in the backward) and, forward
// only, the all-gather of the per-expert token counts; HybridEP, forward only, all-gathers
// every rank's routing map over the group before its metadata scan (HybridEPBuffer::
// metadata_preprocessing, allgather_routing_map: deepseek-ai/DeepEP hybrid-ep @ 94a9f8f6,
// csrc/hybrid_ep/hybrid_ep.cu; the backward reuses the forward's handle). DeepEP's and
// HybridEP's token all-to-alls run at their own measured rates (the step gives them
// dispatcher_rates.hpp's rate, layer_collectives.cpp), the alltoall dispatcher's at NCCL's. `moe_layers` of the
// `layers` are MoE layers (DeepSeek-V3's first layers are dense): their collectives are
// spread over the pass's layers.
// With expert parallel folding and expert_tp > 1, after the dispatch the tokens a rank
// received are all-gathered over its expert_tp group, and the experts' outputs
// reduce-scattered back before the combine (the backward runs the conjugates); each rank
// receives, on balance, the top_k copies of as many tokens as it sent. Without folding the
// MoE MLP's collectives are the TP group's (add_layer_tp_comm).
void add_layer_expert_comm(PassCost& cost, const Scenario& s, int moe_layers, int layers, double tokens_bytes,
                           double expert_load, bool forward) {
  const ParallelSpec& p = s.parallel;
  const ModelSpec& m = s.model;
  if (!m.is_moe() || moe_layers == 0) return;
  const double copies_bytes = tokens_bytes * dispatched_rows_per_token(m, p) * expert_load;
  const double element = activation_element_bytes(s.training.precision);
  const double tokens = tokens_bytes / (m.hidden * element);
  if (p.ep > 1) {
    // Padded to capacity every count is known on the host: no all-gather of them
    // (models/expert_capacity.hpp).
    if (forward && p.moe_dispatcher == MoeDispatcher::alltoall && !pads_to_capacity(m))
      add_collective(cost, CollectiveOp::all_gather, p.ep * m.experts * k_token_count_bytes, moe_layers, layers,
                     CommGroup::ep);
    if (forward && p.moe_dispatcher == MoeDispatcher::hybridep)
      add_collective(cost, CollectiveOp::all_gather, p.ep * tokens * m.experts * k_routing_map_bytes, moe_layers,
                     layers, CommGroup::ep);
    add_collective(cost, CollectiveOp::all_to_all, copies_bytes, 2 * moe_layers, layers, CommGroup::ep);
    cost.collectives.back().tokens = true;
    if (p.moe_dispatcher == MoeDispatcher::alltoall)
      add_collective(cost, CollectiveOp::all_to_all, tokens * m.top_k * expert_load * k_routing_probability_bytes,
                     moe_layers, layers, CommGroup::ep);
  }
  if (!p.expert_folding() || p.expert_tp_size() == 1) return;
  const double gathered = p.expert_tp_size() * tokens_bytes * m.top_k * expert_load;
  add_collective(cost, CollectiveOp::all_gather, gathered, moe_layers, layers, CommGroup::etp);
  add_collective(cost, CollectiveOp::reduce_scatter, gathered, moe_layers, layers, CommGroup::etp);
}

// Context parallelism: each layer's attention gathers the other ranks' K and V blocks
// around the ring (forward) and returns their gradients (backward): cp blocks of
// 2 x (s/cp) b kv_heads head_dim elements per TP rank.
double layer_cp_bytes(const Scenario& s, double element) {
  const ParallelSpec& p = s.parallel;
  if (p.cp == 1) return 0;
  const double tokens = static_cast<double>(s.training.micro_batch) * s.model.seq_len / p.cp;
  if (s.model.is_mla()) return p.cp * tokens * s.model.kv_width() * element / p.tp;  // per-head K and V
  return p.cp * 2.0 * tokens * s.model.kv_heads * s.model.head_dim() * element / p.tp;
}

// One [b, s/cp, h] activation: the TP collectives' and the pipeline sends' size.
double layer_activation_bytes(const Scenario& s) {
  return static_cast<double>(s.training.micro_batch) * s.model.seq_len / s.parallel.cp * s.model.hidden *
         activation_element_bytes(s.training.precision);
}

// The tensor-parallel collectives of `layers` layers in one pass (Narayanan et al. SC21 §3.2:
// two all-reduces of b s h per layer forward and two backward; with sequence parallelism
// each becomes an all-gather and a reduce-scatter of the same size, Korthikanti et al.
// §4.2.2), each overlapped with its GEMM when `overlap` is given; the all-gathers in fp8
// carry one byte an element (tp_gather_bytes).
//
// `mlp_layers` of the `layers` have their MLP's collectives on the TP group: all of them,
// unless expert parallel folding moves the MoE layers' to the expert groups
// (add_layer_expert_comm).
void add_layer_tp_comm(PassCost& cost, const Scenario& s, int layers, int mlp_layers, double activation_bytes,
                       const LayerOverlap* overlap = nullptr) {
  if (s.parallel.tp == 1 || layers == 0) return;
  if (s.model.parallel_block) {
    // GPT-J / PaLM §2: the attention's and the MLP's partial outputs are summed before one
    // all-reduce (forward), and their input gradients before one (backward).
    add_collective(cost, s.parallel.sequence_parallel ? CollectiveOp::all_gather : CollectiveOp::all_reduce,
                   activation_bytes, layers, layers);
    if (s.parallel.sequence_parallel)
      add_collective(cost, CollectiveOp::reduce_scatter, activation_bytes, layers, layers);
    return;
  }
  const double gather_bytes = tp_gather_bytes(s, activation_bytes);
  if (reduces_amax_over_tp(s)) {
    // One amax all-reduce per sequence-parallel cast: the attention's and the MLP's, in the
    // forward their inputs', in the backward their output gradients' (fixed_costs.hpp).
    GroupCollective amax{CommGroup::tp, CollectiveOp::all_reduce, k_amax_bytes, layers + mlp_layers, 0.0, layers};
    amax.amax = true;
    cost.collectives.push_back(amax);
  }
  if (s.parallel.sequence_parallel && overlap != nullptr) {
    const auto add = [&](CollectiveOp op, double bytes, int count, const OverlapSlot& slot) {
      GroupCollective c{CommGroup::tp, op, bytes, count, slot.gemm_s, layers};
      c.beside_s = slot.beside_s;
      cost.collectives.push_back(c);
    };
    add(CollectiveOp::all_gather, gather_bytes, layers, overlap->attention_gather);
    add(CollectiveOp::reduce_scatter, activation_bytes, layers, overlap->attention_scatter);
    if (mlp_layers > 0) {
      add(CollectiveOp::all_gather, gather_bytes, mlp_layers, overlap->mlp_gather);
      add(CollectiveOp::reduce_scatter, activation_bytes, mlp_layers, overlap->mlp_scatter);
    }
    const double attention_s = overlap->attention_gather.gemm_s + overlap->attention_scatter.gemm_s;
    const double mlp_s = overlap->mlp_gather.gemm_s + overlap->mlp_scatter.gemm_s;
    cost.overlapped_s += mlp_layers == layers ? layers * (attention_s + mlp_s) : layers * attention_s + mlp_layers * mlp_s;
    return;
  }
  if (s.parallel.sequence_parallel) {
    add_collective(cost, CollectiveOp::all_gather, gather_bytes, layers + mlp_layers, layers);
    add_collective(cost, CollectiveOp::reduce_scatter, activation_bytes, layers + mlp_layers, layers);
  } else {
    add_collective(cost, CollectiveOp::all_reduce, activation_bytes, layers + mlp_layers, layers);
  }
}

// The layers whose MLP collectives run on the TP group: all but the MoE ones under folding.
int tp_mlp_layers(const Scenario& s, int layers, int moe_layers) {
  return s.parallel.expert_folding() ? layers - moe_layers : layers;
}

// Vocabulary-parallel embedding and output layer (Megatron-LM): the embedding's output is
// all-reduced (reduce-scattered with SP); the output layer's input is all-gathered with SP.
void add_edge_tp_comm(PassCost& cost, const Scenario& s, bool embedding, bool output, double activation_bytes) {
  if (s.parallel.tp == 1) return;
  const bool sp = s.parallel.sequence_parallel;
  if (embedding)
    add_collective(cost, sp ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce, activation_bytes, 1, 0);
  if (output && sp) add_collective(cost, CollectiveOp::all_gather, activation_bytes, 1, 0);
}

struct SplitBackward {
  std::vector<Op> input;
  std::vector<Op> weight;
};

SplitBackward split(const std::vector<Op>& backward, bool defer) {
  SplitBackward b;
  for (const Op& op : backward) (defer && op.weight_gradient ? b.weight : b.input).push_back(op);
  return b;
}

// One kind of layer's ops (models/layer_kinds.hpp) and the GEMMs its TP collectives overlap.
struct KindOps {
  ModelSpec layer;
  bool bf16_linears = false;  ///< one of first_last_layers_bf16's layers
  PassOps ops;
  SplitBackward backward;
  LayerOverlap forward_overlap;
  LayerOverlap backward_overlap;
  /// Seconds one layer's pass waits for the host beyond its GPU time (host_bound_pass.hpp).
  double forward_host_s = 0, recompute_host_s = 0, backward_host_s = 0, weight_host_s = 0;
  /// One layer's forward and backward (input gradients) time, the host's wait included.
  double forward_s = 0, backward_s = 0;
  /// An MoE layer's forward and backward cut at its token all-to-alls (one layer).
  MoeLayerSplit forward_moe, backward_moe;
};

KindOps kind_ops(const ModelSpec& layer, bool bf16_linears, const Scenario& s, const ComputeModel& compute, double load,
                 bool defer) {
  KindOps k;
  k.layer = layer;
  k.bf16_linears = bf16_linears;
  k.ops = transformer_layer_ops(layer, s.training, s.parallel, bf16_linears);
  if (layer.is_moe()) {
    // The pairs a capacity drops leave the model FLOPs (models/expert_capacity.hpp).
    const double kept = expert_loads(s.model, s.parallel, s.run.seed).kept;
    for (std::vector<Op>* pass : {&k.ops.forward, &k.ops.recompute, &k.ops.backward})
      keep_routed_model_flops(*pass, kept);
  }
  k.backward = split(k.ops.backward, defer);
  k.forward_overlap = layer_overlap(k.ops.forward, s, compute, load, layer_activation_bytes(s), true);
  k.backward_overlap = layer_overlap(k.backward.input, s, compute, load, layer_activation_bytes(s), false);
  const HostLaunchCost host_s = host_launch_cost(s.training, s.cluster.host);
  k.forward_host_s = host_bound_excess_s(k.ops.forward, compute, load, host_s);
  k.recompute_host_s = host_bound_excess_s(k.ops.recompute, compute, load, host_s);
  k.backward_host_s = host_bound_excess_s(k.backward.input, compute, load, host_s);
  k.weight_host_s = host_bound_excess_s(k.backward.weight, compute, load, host_s);
  k.forward_s = pass_seconds(k.ops.forward, compute, load) + k.forward_host_s;
  k.backward_s = pass_seconds(k.backward.input, compute, load) + k.backward_host_s;
  if (layer.is_moe()) {
    // A token all-to-all reads the rows it sends from HBM and its peers write as many into it.
    const double comm_hbm_bytes = 2.0 * layer_activation_bytes(s) / (s.parallel.sequence_parallel ? s.parallel.tp : 1) *
                                  dispatched_rows_per_token(s.model, s.parallel) * load;
    k.forward_moe = moe_layer_split(k.ops.forward, compute, load, k.forward_host_s, s, comm_hbm_bytes);
    k.backward_moe = moe_layer_split(k.backward.input, compute, load, k.backward_host_s, s, comm_hbm_bytes);
    const double alone = k.forward_host_s + k.backward_host_s + k.weight_host_s;
    // What the pair's sync adds beyond the passes' own waits (DualPipe always pairs).
    if (s.parallel.moe_a2a_overlap || s.parallel.schedule == Schedule::dualpipe)
      k.forward_moe.paired_host_s = std::max(0.0, paired_host_excess_s(k.ops.forward, k.ops.backward, compute, load,
                                                                       host_s, s.parallel.delay_wgrad_compute) -
                                                      alone);
  }
  return k;
}

// Activation offloading as Transformer Engine's double-buffered handler runs it
// (cpu_offload_v1.py, AsyncDoubleBufferGroupOffloadHandler: a layer's saved tensors are
// copied to the host on a side stream while the next layer computes, and in the backward a
// layer's tensors come back while the layer after it runs its backward). The copy of
// offloaded layer i hides behind the forward of layer i + 1 and its reload behind the
// backward of layer i + 1; what a copy takes beyond that, the pass waits. `offloaded`: the
// bytes of the chunk's first offloaded layers; `layer_s`: every layer's forward or backward
// time in order. The host link runs each way at `link_Bps`.
double offload_wait_s(const std::vector<double>& offloaded, const std::vector<double>& layer_s, double link_Bps) {
  double wait = 0;
  for (size_t i = 0; i < offloaded.size() && i + 1 < layer_s.size(); ++i)
    wait += std::max(0.0, offloaded[i] / link_Bps - layer_s[i + 1]);
  return wait;
}

// `count` layers of kind `k`, the first `recomputed` of them recomputed: their ops' GPU time
// and what the host adds to it.
void add_layers(const KindOps& k, int count, int recomputed, const ComputeModel& compute, double load, ChunkCosts& cc,
                const NcclBeside* nccl) {
  add_ops(k.ops.forward, compute, count, load, cc.forward, nccl);
  add_ops(k.ops.recompute, compute, recomputed, load, cc.recompute, nccl);
  add_ops(k.backward.input, compute, count, load, cc.backward, nccl);
  add_ops(k.backward.weight, compute, count, load, cc.weight, nccl);
  // A pass with a host sync waits as part of its compute; one without, after its collectives
  // (PassCost::hideable_host_s).
  const auto add_host = [](PassCost& pass, const std::vector<Op>& ops, double host_s) {
    (std::ranges::any_of(ops, &Op::host_sync) ? pass.compute_s : pass.hideable_host_s) += host_s;
    pass.host_s += host_s;
  };
  add_host(cc.forward, k.ops.forward, count * k.forward_host_s);
  add_host(cc.recompute, k.ops.recompute, recomputed * k.recompute_host_s);
  add_host(cc.backward, k.backward.input, count * k.backward_host_s);
  add_host(cc.weight, k.backward.weight, count * k.weight_host_s);
}

// The kinds a model's layers come in, each built once.
const KindOps& ops_of(std::deque<KindOps>& kinds, const ModelSpec& layer, const Scenario& s,
                      const ComputeModel& compute, double load, bool defer, bool bf16_linears = false) {
  for (const KindOps& k : kinds)
    if (same_layer_kind(k.layer, layer) && k.bf16_linears == bf16_linears) return k;
  kinds.push_back(kind_ops(layer, bf16_linears, s, compute, load, defer));
  return kinds.back();
}

// A run of layers of one kind, and whether its linear GEMMs stay bf16 (first_last_layers_bf16).
struct PrecisionRun {
  LayerRun run;
  bool bf16_linears = false;
};

// Layers [first, first + layers) of `s.model` as runs of one kind and one linear precision.
std::vector<PrecisionRun> precision_runs(const Scenario& s, int first, int layers) {
  std::vector<PrecisionRun> runs;
  for (const LayerRun& r : layer_runs(s.model, first, layers))
    for (int i = 0; i < r.count; ++i) {
      const bool bf16 = is_bf16_layer(s.training, r.first_layer + i, s.model.layers);
      if (i == 0 || runs.back().bf16_linears != bf16) runs.push_back({{r.layer, r.first_layer + i, 0}, bf16});
      ++runs.back().run.count;
    }
  return runs;
}

// The layers' TP overlap, averaged over a chunk's layers of several kinds (the collectives
// are played layer by layer whatever the kind: GroupCollective::layers).
LayerOverlap mean_overlap(const std::vector<std::pair<const KindOps*, int>>& runs, bool forward) {
  if (runs.size() == 1) return forward ? runs.front().first->forward_overlap : runs.front().first->backward_overlap;
  LayerOverlap mean;
  int layers = 0;
  for (const auto& [k, count] : runs) {
    const LayerOverlap& o = forward ? k->forward_overlap : k->backward_overlap;
    for (auto [sum, slot] : {std::pair{&mean.attention_gather, &o.attention_gather},
                             std::pair{&mean.attention_scatter, &o.attention_scatter},
                             std::pair{&mean.mlp_gather, &o.mlp_gather}, std::pair{&mean.mlp_scatter, &o.mlp_scatter}}) {
      sum->gemm_s += count * slot->gemm_s;
      sum->beside_s += count * slot->beside_s;
    }
    layers += count;
  }
  for (OverlapSlot* v : {&mean.attention_gather, &mean.attention_scatter, &mean.mlp_gather, &mean.mlp_scatter}) {
    v->gemm_s /= layers;
    v->beside_s /= layers;
  }
  return mean;
}

// Multi-token prediction on its chunk (DeepSeek-V3 §2.2; the last unless a pipeline layout
// places it): per module, its projection,
// one more layer of the last layer's kind and the shared output head and loss, kept whole
// (not recomputed). Their collectives run once per pass, after the compute.
void add_mtp(ChunkCosts& cc, const Scenario& s, const ComputeModel& compute, const KindOps& layer, int depth,
             bool defer, double activation_bytes, double ep_tokens_bytes, double load, const NcclBeside* nccl) {
  const PassOps proj = mtp_projection_ops(s.model, s.training, s.parallel);
  const PassOps head = output_ops(s.model, s.training, s.parallel);
  for (const PassOps* ops : {&proj, &head}) {
    const SplitBackward bwd = split(ops->backward, defer);
    add_ops(ops->forward, compute, depth, 1.0, cc.forward, nccl);
    add_ops(bwd.input, compute, depth, 1.0, cc.backward, nccl);
    add_ops(bwd.weight, compute, depth, 1.0, cc.weight, nccl);
  }
  add_layers(layer, depth, 0, compute, load, cc, nccl);
  for (PassCost* pass : {&cc.forward, &cc.backward}) {
    PassCost extra;
    const int moe = layer.layer.is_moe() ? depth : 0;
    add_layer_tp_comm(extra, s, depth, tp_mlp_layers(s, depth, moe), activation_bytes);
    add_layer_expert_comm(extra, s, moe, depth, ep_tokens_bytes, load, pass == &cc.forward);
    for (GroupCollective c : extra.collectives) {
      c.layers = 0;
      pass->collectives.push_back(c);
    }
  }
}

}  // namespace

double op_load(const Op& op, double expert_load) {
  return op.name.rfind("experts.", 0) == 0 ? expert_load : 1.0;
}

StepCosts build_step_costs(const Scenario& s, const ComputeModel& compute, bool defer) {
  const ModelSpec& m = s.model;
  const ParallelSpec& par = s.parallel;
  const PassOps embedding = embedding_ops(m, s.training, par);
  const PassOps output = output_ops(m, s.training, par);
  const SplitBackward embedding_bwd = split(embedding.backward, defer);
  const SplitBackward output_bwd = split(output.backward, defer);
  const double element = activation_element_bytes(s.training.precision);
  const NcclBeside nccl = nccl_beside(s);
  const double activation_bytes = layer_activation_bytes(s);

  // The tokens a rank dispatches to experts: its sequence shard with SP (Megatron-Core).
  const double ep_tokens_bytes = activation_bytes / (par.sequence_parallel ? par.tp : 1);
  const double load = expert_row_load(m, s.training, par, s.run.seed);
  const bool overlap_tp = par.tp_comm_overlap && par.tp > 1 && par.sequence_parallel;
  std::deque<KindOps> kinds;  // a deque: references into it stay valid as kinds are added

  StepCosts step;
  step.activation_bytes = activation_bytes;
  step.microbatches = s.training.grad_accum;
  const std::vector<ModelChunk> chunks = balanced_chunks(m, par);
  const StateBytesPerParameter per_param = state_bytes_per_parameter(s.training);
  for (int stage = 0; stage < par.pp; ++stage) {
    StageCosts st;
    st.stage = stage;
    int chunk_index = 0;
    const std::vector<ModelChunk> own = rank_chunks(chunks, par, stage);
    const std::vector<std::vector<double>> offloaded = offloaded_layer_bytes(m, s.training, par, own);
    for (const ModelChunk& c : own) {
      ChunkCosts cc;
      cc.global_chunk = chunk_index++ * par.pp + stage;
      cc.layers = c.layers;
      // Host overhead the launch queue does not hide (training.*_host_overhead): the GPU waits.
      const TrainingSpec& tr = s.training;
      // The chunk's layers kind by kind (dense and MoE, windowed and full attention); the
      // first `recomputed` of them are recomputed (Megatron-LM's block method).
      const int recomputed = recomputed_layers(s.training, c.layers);
      std::vector<std::pair<const KindOps*, int>> runs;
      int moe_layers = 0, moe_recomputed = 0, before = 0, recompute_ops = 0;
      for (const auto& [r, bf16_linears] : precision_runs(s, c.first_layer, c.layers)) {
        const KindOps& k = ops_of(kinds, r.layer, s, compute, load, defer, bf16_linears);
        runs.emplace_back(&k, r.count);
        const int again = std::clamp(recomputed - before, 0, r.count);
        if (r.layer.is_moe()) {
          moe_layers += r.count;
          moe_recomputed += again;
        }
        if (!k.ops.recompute.empty()) recompute_ops += again;
        before += r.count;
      }
      for (PassCost* pass : {&cc.forward, &cc.backward})
        pass->compute_s += tr.microbatch_host_overhead_s + c.layers * tr.layer_host_overhead_s;
      if (recompute_ops > 0) cc.recompute.compute_s += recompute_ops * tr.layer_host_overhead_s;
      before = 0;
      for (const auto& [k, count] : runs) {
        add_layers(*k, count, std::clamp(recomputed - before, 0, count), compute, load, cc, &nccl);
        before += count;
      }
      if (tr.offload_activations > 0) {
        std::vector<double> forward_s, backward_s;
        for (const auto& [k, count] : runs)
          for (int i = 0; i < count; ++i) {
            forward_s.push_back(k->forward_s);
            backward_s.push_back(k->backward_s);
          }
        const std::vector<double>& out = offloaded[static_cast<size_t>(chunk_index - 1)];
        const double link_Bps = s.cluster.host_link_bandwidth_Bps;
        cc.forward.offload_s = offload_wait_s(out, forward_s, link_Bps);
        cc.backward.offload_s = offload_wait_s(out, backward_s, link_Bps);
        for (const double b : out) cc.forward.offload_bytes += b;
        cc.backward.offload_bytes = cc.forward.offload_bytes;
      }
      if (par.moe_a2a_overlap || par.schedule == Schedule::dualpipe)  // the pairs' split
        for (const auto& [k, count] : runs)
          if (k->layer.is_moe()) {
            add_moe_layers(cc.forward.moe, k->forward_moe, count);
            add_moe_layers(cc.backward.moe, k->backward_moe, count);
          }
      const LayerOverlap fwd_overlap = mean_overlap(runs, true);
      const LayerOverlap bwd_overlap = mean_overlap(runs, false);
      const int tp_mlp = tp_mlp_layers(s, c.layers, moe_layers);
      add_layer_tp_comm(cc.forward, s, c.layers, tp_mlp, activation_bytes, overlap_tp ? &fwd_overlap : nullptr);
      add_layer_tp_comm(cc.backward, s, c.layers, tp_mlp, activation_bytes, overlap_tp ? &bwd_overlap : nullptr);
      for (PassCost* pass : {&cc.forward, &cc.backward})
        add_layer_expert_comm(*pass, s, moe_layers, c.layers, ep_tokens_bytes, load, pass == &cc.forward);
      cc.forward.cp_gather_bytes = cc.backward.cp_gather_bytes = c.layers * layer_cp_bytes(s, element);
      if (par.cp_algo == CpAlgo::all_gather) cc.backward.cp_reduce_bytes = cc.backward.cp_gather_bytes;
      else cc.backward.cp_gather_bytes *= 2;  // dK/dV ride the ring beside K/V (cp_ring_attention.hpp)
      // Full recomputation repeats the forward, its collectives included.
      if (s.training.recompute == Recompute::full) {
        add_layer_tp_comm(cc.recompute, s, recomputed, tp_mlp_layers(s, recomputed, moe_recomputed), activation_bytes,
                          overlap_tp ? &fwd_overlap : nullptr);
        add_layer_expert_comm(cc.recompute, s, moe_recomputed, recomputed, ep_tokens_bytes, load, true);
        cc.recompute.cp_gather_bytes = recomputed * layer_cp_bytes(s, element);
      }
      if (c.has_embedding) {
        add_ops(embedding.forward, compute, 1, 1.0, cc.forward, &nccl);
        add_ops(embedding_bwd.input, compute, 1, 1.0, cc.backward, &nccl);
        add_ops(embedding_bwd.weight, compute, 1, 1.0, cc.weight, &nccl);
      }
      if (c.has_output) {
        add_ops(output.forward, compute, 1, 1.0, cc.forward, &nccl);
        add_ops(output_bwd.input, compute, 1, 1.0, cc.backward, &nccl);
        add_ops(output_bwd.weight, compute, 1, 1.0, cc.weight, &nccl);
      }
      if (c.mtp_layers > 0)
        add_mtp(cc, s, compute, ops_of(kinds, layer_spec(m, m.layers - 1), s, compute, load, defer), c.mtp_layers,
                defer, activation_bytes, ep_tokens_bytes, load, &nccl);
      add_edge_tp_comm(cc.forward, s, c.has_embedding, c.has_output, activation_bytes);
      add_edge_tp_comm(cc.backward, s, c.has_embedding, c.has_output, activation_bytes);
      cc.gradient_tensors = chunk_gradient_tensors(m, par, c);
      st.chunks.push_back(cc);
    }
    const StageParameters params = stage_parameters(m, par, stage, rank_chunks(chunks, par, stage));
    st.dense_gradient_bytes = params.dense * per_param.gradients;
    st.expert_gradient_bytes = params.expert * per_param.gradients;
    st.dense_weight_bytes = params.dense * per_param.weights;
    st.expert_weight_bytes = params.expert * per_param.weights;
    // ZeRO-1 and above update only this rank's shard (Rajbhandari et al. §5.1).
    const double updated = params.dense / par.dense_shard_ranks() + params.expert / par.expert_shard_ranks();
    if (s.training.offload == Offload::cpu) {
      // ZeRO-Offload (Ren et al. 2021, §4): the gradient shard goes to the host, the host
      // runs the optimizer, the updated fp16/bf16 parameters come back over PCIe. The host's
      // update streams the fp32 states at an assumed 20 GB/s per GPU (a share of a node's
      // DRAM bandwidth: a stated estimate until measured).
      constexpr double k_host_stream_Bps = 20e9;
      st.offload_bytes = updated * (per_param.gradients + per_param.weights);
      st.host_optimizer_s = updated * 2.0 * per_param.optimizer / k_host_stream_Bps;
    } else {
      st.optimizer_s = compute.op_time_s(optimizer_op(updated, s.training));
      // The norm's all-reduce and the host's dispatches around its sync (fixed_costs.hpp, loss_host_sync.hpp).
      st.grad_norm_allreduce_s = grad_norm_allreduce_s(s);
      st.host_before_norm_s = host_before_norm_s(s, st.layers());
      st.host_after_norm_s = host_after_norm_s(s, st.layers(), st.gradient_bytes(), st.optimizer_s);
    }
    // The layers' weights, cast once per step; first_last_layers_bf16's layers' stay bf16.
    int stage_layers_all = 0, cast_layers = 0;
    for (const ModelChunk& c : own)
      for (int l = c.first_layer; l < c.first_layer + c.layers; ++l) {
        ++stage_layers_all;
        cast_layers += is_bf16_layer(s.training, l, m.layers) ? 0 : 1;
      }
    const double cast_parameters =
        stage_layers_all > 0 ? params.layers_on_gpu * cast_layers / stage_layers_all : params.layers_on_gpu;
    add_weight_casts(st, s, compute, cast_parameters, cast_layers, per_param.weights);  // fp8_param_gather.hpp
    const int unit_layers = par.zero3_unit_layers;
    st.zero3_unit_bytes = par.zero >= 3 ? unit_layers * params.per_layer_on_gpu * per_param.weights : 0;
    const int stage_layers = st.layers();
    if (par.megatron_fsdp() && par.zero >= 3 && stage_layers > 0) {
      // One layer per unit; the embedding and output layer's parameters are spread over the
      // stage's units as its gradients are (reduction_buckets), so a pass gathers the stage.
      st.zero3_unit_bytes = st.dense_weight_bytes / stage_layers;
      st.zero3_unit_expert_bytes = st.expert_weight_bytes / stage_layers;
    }
    for (const ChunkCosts& c : st.chunks) st.zero3_units.push_back((c.layers + unit_layers - 1) / unit_layers);
    step.stages.push_back(st);
  }
  return step;
}

}  // namespace trainsim
