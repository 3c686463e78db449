#include "sim/step/stage_costs.hpp"

#include <algorithm>

#include "models/expert_load.hpp"
#include "models/layer_workload.hpp"
#include "models/memory_budget.hpp"
#include "models/model_state_memory.hpp"
#include "models/stage_parameters.hpp"

namespace trainsim {

namespace {

using engine::CollectiveOp;

// `expert_load`: the busiest expert-parallel rank's tokens over the balanced share.
void add_ops(const std::vector<Op>& ops, const ComputeModel& compute, double repeat, double expert_load,
             PassCost& cost) {
  for (const Op& op : ops) {
    const double scale = op_load(op, expert_load);
    const double seconds = repeat * scale * compute.op_time_s(op);
    cost.compute_s += seconds;
    if (is_attention_core(op)) cost.attention_s += seconds;  // what ring attention's K/V exchange overlaps
    cost.model_flops += repeat * op.model_flops;
    cost.executed_flops += repeat * scale * op.flops;
  }
}

void add_collective(PassCost& cost, CollectiveOp op, double bytes, int count, CommGroup group = CommGroup::tp) {
  if (count > 0) cost.collectives.push_back({group, op, bytes, count});
}

// MoE token dispatch and combine: two all-to-alls per layer and pass over the expert-
// parallel group (Lepikhin et al. 2020, GShard §2.2; Megatron-Core's all-to-all token
// dispatcher), each rank sending its tokens' top_k copies, the busiest rank the most.
void add_layer_ep_comm(PassCost& cost, const Scenario& s, int layers, double tokens_bytes, double expert_load) {
  if (!s.model.is_moe() || s.parallel.ep == 1 || layers == 0) return;
  add_collective(cost, CollectiveOp::all_to_all, tokens_bytes * s.model.top_k * expert_load, 2 * layers, CommGroup::ep);
}

// Context parallelism: each layer's attention gathers the other ranks' K and V blocks
// around the ring (forward) and returns their gradients (backward): cp blocks of
// 2 x (s/cp) b kv_heads head_dim elements per TP rank.
double layer_cp_bytes(const Scenario& s, double element) {
  const ParallelSpec& p = s.parallel;
  if (p.cp == 1) return 0;
  const double tokens = static_cast<double>(s.training.micro_batch) * s.model.seq_len / p.cp;
  return p.cp * 2.0 * tokens * s.model.kv_heads * s.model.head_dim() * element / p.tp;
}

// The tensor-parallel collectives of `layers` layers in one pass (Narayanan et al. SC21 §3.2:
// two all-reduces of b s h per layer forward and two backward; with sequence parallelism
// each becomes an all-gather and a reduce-scatter of the same size, Korthikanti et al.
// §4.2.2).
void add_layer_tp_comm(PassCost& cost, const Scenario& s, int layers, double activation_bytes) {
  if (s.parallel.tp == 1 || layers == 0) return;
  if (s.parallel.sequence_parallel) {
    add_collective(cost, CollectiveOp::all_gather, activation_bytes, 2 * layers);
    add_collective(cost, CollectiveOp::reduce_scatter, activation_bytes, 2 * layers);
  } else {
    add_collective(cost, CollectiveOp::all_reduce, activation_bytes, 2 * layers);
  }
}

// Vocabulary-parallel embedding and output layer (Megatron-LM): the embedding's output is
// all-reduced (reduce-scattered with SP); the output layer's input is all-gathered with SP.
void add_edge_tp_comm(PassCost& cost, const Scenario& s, bool embedding, bool output, double activation_bytes) {
  if (s.parallel.tp == 1) return;
  const bool sp = s.parallel.sequence_parallel;
  if (embedding)
    add_collective(cost, sp ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce, activation_bytes, 1);
  if (output && sp) add_collective(cost, CollectiveOp::all_gather, activation_bytes, 1);
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

}  // namespace

double op_load(const Op& op, double expert_load) {
  return op.name.rfind("experts.", 0) == 0 ? expert_load : 1.0;
}

StepCosts build_step_costs(const Scenario& s, const ComputeModel& compute, bool defer) {
  const ModelSpec& m = s.model;
  const ParallelSpec& par = s.parallel;
  const PassOps layer = transformer_layer_ops(m, s.training, par);
  const PassOps embedding = embedding_ops(m, s.training, par);
  const PassOps output = output_ops(m, s.training, par);
  const SplitBackward layer_bwd = split(layer.backward, defer);
  const SplitBackward embedding_bwd = split(embedding.backward, defer);
  const SplitBackward output_bwd = split(output.backward, defer);
  const double element = s.training.precision == Precision::fp32 ? 4.0 : 2.0;
  // One [b, s/cp, h] activation: the TP collectives' and the pipeline sends' size.
  const double activation_bytes = static_cast<double>(s.training.micro_batch) * m.seq_len / par.cp * m.hidden * element;

  // The tokens a rank dispatches to experts: its sequence shard with SP (Megatron-Core).
  const double ep_tokens_bytes = activation_bytes / (par.sequence_parallel ? par.tp : 1);
  const double load = busiest_expert_rank_load(m, par, s.run.seed);

  StepCosts step;
  step.activation_bytes = activation_bytes;
  step.microbatches = s.training.grad_accum;
  const std::vector<ModelChunk> chunks = balanced_chunks(m, par);
  const StateBytesPerParameter per_param = state_bytes_per_parameter(s.training.precision, s.training.optimizer);
  for (int stage = 0; stage < par.pp; ++stage) {
    StageCosts st;
    st.stage = stage;
    int layers_on_stage = 0;
    int chunk_index = 0;
    for (const ModelChunk& c : chunks_of_stage(chunks, par.pp, stage)) {
      ChunkCosts cc;
      cc.global_chunk = chunk_index++ * par.pp + stage;
      cc.layers = c.layers;
      layers_on_stage += c.layers;
      add_ops(layer.forward, compute, c.layers, load, cc.forward);
      add_ops(layer.recompute, compute, c.layers, load, cc.recompute);
      add_ops(layer_bwd.input, compute, c.layers, load, cc.backward);
      add_ops(layer_bwd.weight, compute, c.layers, load, cc.weight);
      add_layer_tp_comm(cc.forward, s, c.layers, activation_bytes);
      add_layer_tp_comm(cc.backward, s, c.layers, activation_bytes);
      add_layer_ep_comm(cc.forward, s, c.layers, ep_tokens_bytes, load);
      add_layer_ep_comm(cc.backward, s, c.layers, ep_tokens_bytes, load);
      cc.forward.cp_gather_bytes = cc.backward.cp_gather_bytes = c.layers * layer_cp_bytes(s, element);
      // Full recomputation repeats the forward, its collectives included.
      if (s.training.recompute == Recompute::full) {
        add_layer_tp_comm(cc.recompute, s, c.layers, activation_bytes);
        add_layer_ep_comm(cc.recompute, s, c.layers, ep_tokens_bytes, load);
        cc.recompute.cp_gather_bytes = cc.forward.cp_gather_bytes;
      }
      if (c.has_embedding) {
        add_ops(embedding.forward, compute, 1, 1.0, cc.forward);
        add_ops(embedding_bwd.input, compute, 1, 1.0, cc.backward);
        add_ops(embedding_bwd.weight, compute, 1, 1.0, cc.weight);
      }
      if (c.has_output) {
        add_ops(output.forward, compute, 1, 1.0, cc.forward);
        add_ops(output_bwd.input, compute, 1, 1.0, cc.backward);
        add_ops(output_bwd.weight, compute, 1, 1.0, cc.weight);
      }
      add_edge_tp_comm(cc.forward, s, c.has_embedding, c.has_output, activation_bytes);
      add_edge_tp_comm(cc.backward, s, c.has_embedding, c.has_output, activation_bytes);
      st.chunks.push_back(cc);
    }
    const StageParameters params = stage_parameters(m, par, stage, layers_on_stage);
    st.dense_gradient_bytes = params.dense * per_param.gradients;
    st.expert_gradient_bytes = params.expert * per_param.gradients;
    // ZeRO-1 and above update only this rank's shard (Rajbhandari et al. §5.1).
    const double shard_ranks = par.zero >= 1 ? par.gradient_group() : 1;
    const double expert_shard_ranks = par.zero >= 1 ? std::max(1, par.gradient_group() / par.ep) : 1;
    const double updated = params.dense / shard_ranks + params.expert / expert_shard_ranks;
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
    }
    const int unit_layers = par.zero3_unit_layers;
    st.zero3_unit_bytes = par.zero >= 3 ? unit_layers * params.per_layer_on_gpu * per_param.weights : 0;
    for (const ChunkCosts& c : st.chunks) st.zero3_units.push_back((c.layers + unit_layers - 1) / unit_layers);
    step.stages.push_back(st);
  }
  return step;
}

}  // namespace trainsim
