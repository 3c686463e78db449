#include "sim/scenario/scenario_rules.hpp"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "models/memory_budget.hpp"
#include "sim/core/error.hpp"
#include "sim/run/run_limits.hpp"
#include "sim/scenario/pipeline_layout_field.hpp"
#include "sim/scenario/precision_recipe.hpp"
#include "sim/scenario/scenario_fields.hpp"
#include "sim/scenario/tp_overlap_fields.hpp"
#include "sim/scenario/token_drop_fields.hpp"
#include "topologies/fabric_layout.hpp"

namespace trainsim {

namespace {
std::string str(long long v) {
  return std::to_string(v);
}

std::string seconds(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gs", v);
  return buf;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// One rule: if `broken`, the scenario is rejected with `key`, `value` and `rule`.
void require(const Scenario& s, bool ok, const std::string& key, long long value, const std::string& rule) {
  if (!ok) throw InputError(s.source, key, str(value), rule);
}

void check_layout(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  const ClusterSpec& c = s.cluster;
  // In double: four ints can overflow any integer type; the cluster's count is <= 2^20.
  const double world = static_cast<double>(p.tp) * p.pp * p.dp * p.cp;
  char world_text[32];
  std::snprintf(world_text, sizeof world_text, "%.0f", world);
  require(s, world == c.total_gpus(), "parallel.dp", p.dp,
          "tp*pp*dp*cp = " + std::string(world_text) +
              " must equal the cluster's GPUs, nodes*gpus_per_node = " + str(c.total_gpus()));
}

// The architecture keys of issue 16: MLA, windows, MoE variants, multi-token prediction.
void check_model_variants(const Scenario& s) {
  const ModelSpec& m = s.model;
  require(s, m.sliding_window <= m.seq_len, "model.sliding_window", m.sliding_window,
          "must not exceed model.seq_len = " + str(m.seq_len) + " (0: full attention)");
  require(s, m.full_attention_interval == 0 || m.sliding_window > 0, "model.full_attention_interval",
          m.full_attention_interval, "needs model.sliding_window > 0");
  require(s, m.full_attention_interval <= m.layers, "model.full_attention_interval", m.full_attention_interval,
          "must not exceed model.layers = " + str(m.layers));
  require(s, m.dense_layers == 0 || m.is_moe(), "model.dense_layers", m.dense_layers, "needs model.experts > 1");
  require(s, m.dense_layers < m.layers, "model.dense_layers", m.dense_layers,
          "must be less than model.layers = " + str(m.layers) + " (the rest are MoE layers)");
  require(s, m.moe_layer_interval == 1 || m.is_moe(), "model.moe_layer_interval", m.moe_layer_interval,
          "needs model.experts > 1");
  require(s, m.moe_layer_interval <= m.layers - m.dense_layers, "model.moe_layer_interval", m.moe_layer_interval,
          "must not exceed the layers after model.dense_layers = " + str(m.layers - m.dense_layers) +
              " (some layer must be MoE)");
  require(s, m.shared_experts == 0 || m.is_moe(), "model.shared_experts", m.shared_experts, "needs model.experts > 1");
  require(s, m.moe_ffn_hidden == 0 || m.is_moe(), "model.moe_ffn_hidden", m.moe_ffn_hidden, "needs model.experts > 1");
  require(s, m.shared_expert_ffn_hidden == 0 || m.shared_experts > 0, "model.shared_expert_ffn_hidden",
          m.shared_expert_ffn_hidden, "needs model.shared_experts > 0");
  require(s, m.q_lora_rank == 0 || m.is_mla(), "model.q_lora_rank", m.q_lora_rank,
          "needs MLA: model.kv_lora_rank > 0");
  for (const auto& [key, value] : {std::pair<const char*, int>{"model.qk_rope_head_dim", m.qk_rope_head_dim},
                                   {"model.qk_nope_head_dim", m.qk_nope_head_dim},
                                   {"model.v_head_dim", m.v_head_dim}}) {
    if (m.is_mla())
      require(s, value > 0, key, value, "must be > 0 with MLA (model.kv_lora_rank > 0)");
    else
      require(s, value == 0, key, value, "needs MLA: model.kv_lora_rank > 0");
  }
  require(s, !m.is_mla() || m.explicit_head_dim == 0, "model.head_dim", m.explicit_head_dim,
          "does not apply with MLA: its heads are qk_nope_head_dim + qk_rope_head_dim and v_head_dim wide");
}

void check_model(const Scenario& s) {
  const ModelSpec& m = s.model;
  if (m.explicit_head_dim == 0)
    require(s, m.hidden % m.heads == 0, "model.hidden", m.hidden, "must be divisible by model.heads = " + str(m.heads));
  require(s, m.kv_heads <= m.heads && m.heads % m.kv_heads == 0, "model.kv_heads", m.kv_heads,
          "must divide model.heads = " + str(m.heads));
  require(s, m.top_k <= m.experts, "model.top_k", m.top_k, "must not exceed model.experts = " + str(m.experts));
  check_model_variants(s);
}

void check_tensor_parallel(const Scenario& s) {
  const ModelSpec& m = s.model;
  const int tp = s.parallel.tp;
  // Transformer Engine's userbuffers overlap the all-gathers and reduce-scatters of sequence
  // parallelism (Megatron-LM asserts --sequence-parallel with --tp-comm-overlap).
  if (s.parallel.tp_comm_overlap && !(tp > 1 && s.parallel.sequence_parallel))
    throw InputError(s.source, "parallel.tp_comm_overlap", "true",
                     "overlaps sequence-parallel collectives: it needs parallel.tp > 1 and "
                     "parallel.sequence_parallel = true");
  // Megatron-LM splits heads, KV heads and the MLP's inner dimension across TP ranks.
  require(s, m.heads % tp == 0, "model.heads", m.heads, "must be divisible by parallel.tp = " + str(tp));
  require(s, m.kv_heads % tp == 0, "model.kv_heads", m.kv_heads, "must be divisible by parallel.tp = " + str(tp));
  require(s, m.ffn_hidden % tp == 0, "model.ffn_hidden", m.ffn_hidden, "must be divisible by parallel.tp = " + str(tp));
  require(s, m.moe_ffn_hidden % tp == 0, "model.moe_ffn_hidden", m.moe_ffn_hidden,
          "must be divisible by parallel.tp = " + str(tp));
  require(s, m.shared_expert_ffn_hidden % tp == 0, "model.shared_expert_ffn_hidden", m.shared_expert_ffn_hidden,
          "must be divisible by parallel.tp = " + str(tp));
}

void check_pipeline(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  const long long chunks = static_cast<long long>(p.pp) * p.virtual_stages;  // both ints: no overflow (tests/fuzz)
  if (!p.pipeline_layout.empty()) check_pipeline_layout_rules(s);
  // With even-with-ends the embedding and the loss fill a chunk each (Llama 3 §3.3.2).
  else if (p.stage_split == StageSplit::even_with_ends)
    require(s, s.model.layers + 2LL >= chunks, "model.layers", s.model.layers,
            "must be at least parallel.pp * parallel.virtual_stages - 2 = " + str(chunks - 2) +
                " (each model chunk needs a layer, the embedding or the loss)");
  else
    require(s, s.model.layers >= chunks, "model.layers", s.model.layers,
            "must be at least parallel.pp * parallel.virtual_stages = " + str(chunks) +
                " (each model chunk needs a layer)");
  if (p.stage_split == StageSplit::even && p.pipeline_layout.empty())
    require(s, s.model.layers % chunks == 0, "model.layers", s.model.layers,
            "parallel.stage_split = even needs the layers to divide into pp * virtual_stages = " + str(chunks) +
                " chunks");
  if (p.stage_split == StageSplit::even_with_ends && p.pipeline_layout.empty())
    require(s, (s.model.layers + 2LL) % chunks == 0 && chunks >= 2, "model.layers", s.model.layers,
            "parallel.stage_split = even-with-ends needs layers + 2 (the embedding and the loss) to divide into "
            "pp * virtual_stages = " + str(chunks) + " chunks (at least 2)");
  if (p.schedule == Schedule::interleaved) {
    require(s, p.pp >= 2, "parallel.pp", p.pp, "the interleaved schedule needs pp >= 2");
    require(s, p.virtual_stages >= 2, "parallel.virtual_stages", p.virtual_stages,
            "the interleaved schedule needs virtual_stages >= 2");
    // Narayanan et al. SC21 §2.2.2: the interleaved schedule needs m a multiple of p. With a
    // micro-batch group of its own (Llama 3 §3.3.2, Megatron-Core's
    // microbatch_group_size_per_vp_stage) any m runs: the last group takes the remainder.
    if (p.microbatch_group == 0)
      require(s, s.training.grad_accum % p.pp == 0, "training.grad_accum", s.training.grad_accum,
              "the interleaved schedule needs the micro-batch count to be a multiple of parallel.pp = " + str(p.pp) +
                  " (or set parallel.microbatch_group)");
    // Megatron-Core (schedules.py, forward_backward_pipelining_with_interleaving): pp <= N <= m,
    // and a last group of m mod N micro-batches either empty or at least pp; a smaller group
    // waits on its own chunks (a dependency bubble) and the 1F1B phase deadlocks.
    if (p.microbatch_group != 0) {
      const int m = s.training.grad_accum;
      require(s, p.microbatch_group >= p.pp && p.microbatch_group <= m, "parallel.microbatch_group",
              p.microbatch_group,
              "must lie between parallel.pp = " + str(p.pp) + " and the micro-batch count training.grad_accum = " +
                  str(m) + " (0: pp)");
      const int last = m % p.microbatch_group;
      require(s, last == 0 || last >= p.pp, "parallel.microbatch_group", p.microbatch_group,
              "leaves a last group of " + str(last) + " micro-batches (grad_accum mod microbatch_group), fewer than "
              "parallel.pp = " + str(p.pp));
    }
  } else {
    require(s, p.microbatch_group == 0, "parallel.microbatch_group", p.microbatch_group,
            "only the interleaved schedule groups micro-batches; leave it at 0");
    require(s, p.virtual_stages == 1, "parallel.virtual_stages", p.virtual_stages,
            "only the interleaved schedule uses virtual stages; set it to 1");
  }
}

// HSDP (PyTorch FSDP HYBRID_SHARD; Megatron-Core num_distributed_optimizer_instances): shard
// groups tile the gradient group, and each holds whole expert-parallel groups.
void check_hybrid_sharding(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  if (p.zero_shard_size == 0) return;
  require(s, p.zero >= 1, "parallel.zero_shard_size", p.zero_shard_size,
          "shards ZeRO states: needs parallel.zero >= 1 (it is 0)");
  const int group = p.gradient_group();
  require(s, group % p.zero_shard_size == 0, "parallel.zero_shard_size", p.zero_shard_size,
          "must divide the gradient group dp x cp = " + str(group));
  require(s, p.zero_shard_size * p.tp % p.expert_slice() == 0, "parallel.zero_shard_size", p.zero_shard_size,
          "times parallel.tp = " + str(p.tp) + " must be a multiple of expert_tp x ep = " + str(p.expert_slice()) +
              " (each shard group holds whole expert groups)");
}

// Megatron FSDP (megatron/core/distributed/fsdp/src/README.md @ 00611e6e): its
// data_parallel_sharding_strategy optim_grads (2) or optim_grads_params (3), one transformer
// layer per unit, fsdp_double_buffer's two units in flight, gradients reduced per unit as
// each backward ends (overlap_grad_reduce).
void check_megatron_fsdp(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  if (p.fsdp != Fsdp::megatron) return;
  const auto refuse = [&](const std::string& key, const std::string& value, const std::string& rule) {
    throw InputError(s.source, key, value, rule);
  };
  if (p.zero < 2)
    refuse("parallel.fsdp", "megatron",
           "Megatron FSDP shards gradients (optim_grads) or gradients and parameters (optim_grads_params): needs "
           "parallel.zero = 2 or 3 (it is " +
               str(p.zero) + ")");
  if (p.zero3_unit_layers != 1)
    refuse("parallel.zero3_unit_layers", str(p.zero3_unit_layers),
           "Megatron FSDP's unit is one transformer layer: leave it at 1 with parallel.fsdp = megatron");
  if (p.zero3_prefetch != 1)
    refuse("parallel.zero3_prefetch", str(p.zero3_prefetch),
           "Megatron FSDP's double buffer gathers one unit ahead: leave it at 1 with parallel.fsdp = megatron");
  if (!p.overlap_grad_reduce)
    refuse("parallel.overlap_grad_reduce", "false",
           "Megatron FSDP reduces each unit's gradients as its backward ends: needs true with parallel.fsdp = "
           "megatron");
}

void check_context_and_experts(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  const ModelSpec& m = s.model;
  require(s, m.seq_len % p.cp == 0, "model.seq_len", m.seq_len, "must be divisible by parallel.cp = " + str(p.cp));
  require(s, m.experts % p.ep == 0, "model.experts", m.experts, "must be divisible by parallel.ep = " + str(p.ep));
  require(s, p.ep == 1 || m.is_moe(), "parallel.ep", p.ep, "expert parallelism needs model.experts > 1");
  if (m.router_load > 1.0 && m.expert_imbalance > 0)
    throw InputError(s.source, "model.router_balance", number(m.router_load),
                     "a stated load factor and model.expert_imbalance (drawn loads) exclude each other: give one");
  if (p.moe_dispatcher != MoeDispatcher::alltoall && !m.is_moe())
    throw InputError(s.source, "parallel.moe_dispatcher",
                     p.moe_dispatcher == MoeDispatcher::deepep ? "deepep" : "hybridep",
                     "a token dispatcher needs model.experts > 1");
  if (p.moe_dispatcher_sms > 0 && p.moe_dispatcher == MoeDispatcher::alltoall)
    throw InputError(s.source, "parallel.moe_dispatcher_sms", str(p.moe_dispatcher_sms),
                     "sets the flex dispatcher's SMs (Megatron-Core's moe_flex_dispatcher_num_sms): needs "
                     "parallel.moe_dispatcher = deepep or hybridep");
  if (p.moe_dispatcher_sms > 0 && s.cluster.gpu.sms > 0 && p.moe_dispatcher_sms >= s.cluster.gpu.sms)
    throw InputError(s.source, "parallel.moe_dispatcher_sms", str(p.moe_dispatcher_sms),
                     "must be below the GPU's " + str(s.cluster.gpu.sms) + " SMs (" + s.cluster.gpu.name + ")");
  // The expert layers fold the stage's tp x cp x dp ranks as expert_tp x ep x expert-dp
  // (Megatron-Core's MoE parallel folding; with expert_tp = tp and cp = 1, EP is carved out
  // of the data-parallel ranks as in Megatron-LM and DeepSpeed-MoE).
  require(s, p.expert_tp == 0 || m.is_moe(), "parallel.expert_tp", p.expert_tp,
          "expert tensor parallelism needs model.experts > 1");
  const int etp = p.expert_tp_size();
  require(s, p.whole_expert_groups(), p.expert_tp > 0 ? "parallel.expert_tp" : "parallel.ep",
          p.expert_tp > 0 ? p.expert_tp : p.ep,
          "expert_tp x ep = " + str(p.expert_slice()) + " must divide a stage's tp x cp x dp = " +
              str(p.stage_ranks()) + " ranks");
  if (!m.is_moe() || !p.expert_folding()) return;
  require(s, m.expert_ffn() % etp == 0, "parallel.expert_tp", p.expert_tp,
          "must divide the experts' FFN width " + str(m.expert_ffn()));
  // Megatron-Core dispatches each rank's sequence shard: folded experts under TP need it.
  require(s, p.tp == 1 || p.sequence_parallel, "parallel.expert_tp", p.expert_tp,
          "differs from parallel.tp = " + str(p.tp) + ": needs parallel.sequence_parallel = true");
}

void check_rank_order(const Scenario& s) {
  if (const auto rule = rank_order_rule(s.parallel)) throw InputError(s.source, "parallel.order", s.parallel.order.text(), *rule);
}

// MoE all-to-all overlap as Megatron-Core allows it (TransformerConfig.__post_init__ at
// NVIDIA/Megatron-LM d98e8a64: expert parallelism, no full recomputation, a bf16 or fp16
// model, virtual pipeline stages with pipelining), and where trainsim models it: the pairs'
// layers carry their expert-parallel and TP collectives (no folded expert-TP or CP
// collectives, no ZeRO-3 unit gathers between them). Megatron-Bridge's H100 DeepSeek-V3
// recipe (TP 2, EP 64, expert_tp 1, DeepEP, the overlap) is one such layout.
void check_moe_a2a_overlap(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  if (p.delay_wgrad_compute && !p.moe_a2a_overlap)
    throw InputError(s.source, "parallel.delay_wgrad_compute", "true",
                     "delays the experts' weight gradients inside the all-to-all overlap: needs "
                     "parallel.moe_a2a_overlap = true");
  if (!p.moe_a2a_overlap) return;
  const auto refuse = [&](const std::string& rule) {
    throw InputError(s.source, "parallel.moe_a2a_overlap", "true", rule);
  };
  if (p.ep == 1) refuse("overlaps expert-parallel all-to-alls: needs parallel.ep > 1");
  if (s.training.recompute == Recompute::full)
    refuse("Megatron-Core refuses it with full recomputation: needs training.recompute = none or selective");
  if (s.training.precision == Precision::fp32)
    refuse("Megatron-Core needs a bf16 or fp16 model: not training.precision = fp32");
  if (p.pp > 1 && p.schedule != Schedule::interleaved)
    refuse("with pipelining Megatron-Core needs virtual stages: needs parallel.schedule = interleaved");
  if (p.schedule == Schedule::zb_h1) refuse("pairs whole backwards: not with parallel.schedule = zb-h1");
  // Folded experts with expert_tp 1 add no collective of their own (stage_costs.cpp).
  if ((p.expert_folding() && p.expert_tp_size() > 1) || p.cp > 1)
    refuse("modelled beside the layers' TP collectives only: needs parallel.cp = 1 and no folded expert_tp > 1");
  if (p.zero >= 3 || p.megatron_fsdp())
    refuse("modelled without ZeRO-3 or Megatron FSDP unit collectives: needs parallel.zero <= 2, fsdp = none");
}

// CUDA graphs as Megatron-Core allows them (models/cuda_graphs.hpp; Megatron-LM
// docs/discussions/deepseek-v3-gb200-optimization @ eb0783b6): moe_preprocess only with
// moe_router, the MoE scopes on MoE models, and full_iteration alone and without a host sync,
// which MoE layers without static shapes pay every forward (their token counts).
void check_cuda_graphs(const Scenario& s) {
  const CudaGraphs& g = s.training.cuda_graphs;
  if (g.none()) return;
  const auto refuse = [&](const std::string& rule) {
    throw InputError(s.source, "training.cuda_graphs", graph_scopes_text(g), rule);
  };
  CudaGraphs full;
  full.add(GraphScope::full_iteration);
  if (g.has(GraphScope::full_iteration) && !(g == full)) refuse("full_iteration captures every op: give it alone");
  if (g.has(GraphScope::moe_preprocess) && !g.has(GraphScope::moe_router))
    refuse("moe_preprocess is captured together with moe_router (Megatron-Core)");
  if ((g.has(GraphScope::moe_router) || g.has(GraphScope::moe_preprocess) || g.has(GraphScope::moe)) &&
      !s.model.is_moe())
    refuse("the moe scopes need model.experts > 1");
  if (g.has(GraphScope::moe) && g.has(GraphScope::moe_router)) refuse("moe and moe_router exclude each other (Megatron-Core)");
}

void check_recompute(const Scenario& s) {
  const TrainingSpec& t = s.training;
  require(s, t.recompute_layers == 0 || t.recompute == Recompute::full, "training.recompute_layers",
          t.recompute_layers, "recomputing some layers needs training.recompute = full");
}

// Activation offloading keeps the last layer of each stage on the GPU: its backward follows
// its forward at once (Megatron-Core refuses cpu_offloading_num_layers >= the layers it
// holds; Transformer Engine's handler offloads num_layers of a block's layers, never all).
// Called once the pipeline's layout is known to be valid.
void check_activation_offload(const Scenario& s) {
  const TrainingSpec& t = s.training;
  if (t.offload_activations == 0) return;
  if (!(s.cluster.host_link_bandwidth_Bps > 0))
    throw InputError(s.source, "cluster.host_link_bandwidth", "0GB/s",
                     "training.offload_activations needs a host link to copy the activations over");
  const std::vector<ModelChunk> chunks = balanced_chunks(s.model, s.parallel);
  for (int stage = 0; stage < s.parallel.pp; ++stage) {
    int layers = 0;
    for (const ModelChunk& c : chunks_of_stage(chunks, s.parallel.pp, stage)) layers += c.layers;
    require(s, t.offload_activations < layers, "training.offload_activations", t.offload_activations,
            "must be fewer than the layers of every pipeline stage (stage " + str(stage) + " holds " + str(layers) +
                "): the last layer's activations stay on the GPU");
  }
}

void check_hardware(const Scenario& s) {
  const Precision p = s.training.precision;
  if (p == Precision::fp8 && !s.cluster.gpu.has_fp8())
    throw InputError(s.source, "training.precision", "fp8",
                     "cluster.gpu = " + s.cluster.gpu.name + " has no fp8 tensor cores");
  // Block-scaled formats run on Blackwell's tensor cores only (B200/GB200/B300 datasheets).
  if (p == Precision::mxfp8 && !s.cluster.gpu.has_mxfp8())
    throw InputError(s.source, "training.precision", "mxfp8",
                     "cluster.gpu = " + s.cluster.gpu.name + " has no MX (block-scaled fp8) tensor cores");
  if (p == Precision::nvfp4 && !s.cluster.gpu.has_nvfp4())
    throw InputError(s.source, "training.precision", "nvfp4",
                     "cluster.gpu = " + s.cluster.gpu.name + " has no NVFP4 tensor cores");
}

// An NVLink domain is whole nodes (a node's NICs and host belong to one domain) and the job
// uses whole nodes of each domain it spans, as many in each (GB200 NVL72: racks of 18 trays
// of 4 GPUs, of which a job may use 16 trays, 64 GPUs, per rack).
void check_nvlink_domain(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  if (c.gpus_per_domain > 0) {
    require(s, c.gpus_per_domain % c.gpus_per_node == 0, "cluster.gpus_per_domain", c.gpus_per_domain,
            "must be a multiple of cluster.gpus_per_node = " + str(c.gpus_per_node) + " (a job uses whole nodes)");
    require(s, c.gpus_per_domain <= c.physical_domain_gpus(), "cluster.gpus_per_domain", c.gpus_per_domain,
            "must be at most the NVLink domain's " + str(c.physical_domain_gpus()) + " GPUs (cluster.nvlink_domain)");
    require(s, c.total_gpus() % c.gpus_per_domain == 0, "cluster.gpus_per_domain", c.gpus_per_domain,
            "must divide the job's GPUs, nodes*gpus_per_node = " + str(c.total_gpus()) +
                " (the job uses as many GPUs in every domain it spans)");
  }
  if (c.nvlink_domain == 0) return;
  require(s, c.nvlink_domain % c.gpus_per_node == 0, "cluster.nvlink_domain", c.nvlink_domain,
          "must be a multiple of cluster.gpus_per_node = " + str(c.gpus_per_node) +
              " (an NVLink domain is whole nodes; 0: one node)");
  if (c.gpus_per_domain == 0)
    require(s, c.total_gpus() % c.domain_gpus() == 0, "cluster.nvlink_domain", c.nvlink_domain,
            "must divide the job's GPUs, nodes*gpus_per_node = " + str(c.total_gpus()) +
                ", or set cluster.gpus_per_domain to the GPUs the job uses in each domain (e.g. 64 of a 72-GPU "
                "rack)");
}

// SHARP is an InfiniBand switch feature (Quantum-2, Quantum-X800); NCCL's CollNet runs on it.
void check_in_network_reduction(const Scenario& s) {
  if (s.cluster.sharp && s.cluster.network != Network::infiniband)
    throw InputError(s.source, "cluster.sharp", "true", "needs cluster.network = infiniband (SHARP is InfiniBand's)");
}

// Shrinking drops whole data-parallel replicas: a replica must fill whole nodes, or a node
// whole replicas.
void check_elastic(const Scenario& s) {
  require(s, s.elastic.min_dp <= s.parallel.dp, "elastic.min_dp", s.elastic.min_dp,
          "must not exceed parallel.dp = " + str(s.parallel.dp));
  if (s.elastic.policy != ElasticPolicy::shrink) return;
  if (!s.checkpoint.reshardable)
    throw InputError(
        s.source, "elastic.policy", "shrink",
        "shrinking reloads the checkpoint at a smaller data-parallel size: it needs checkpoint.reshardable "
        "= true");
  const int replica = s.parallel.tp * s.parallel.pp * s.parallel.cp;
  const int gpn = s.cluster.gpus_per_node;
  if (replica % gpn != 0 && gpn % replica != 0)
    throw InputError(s.source, "elastic.policy", "shrink",
                     "shrink needs a replica's GPUs, tp*pp*cp = " + str(replica) +
                         ", to be a multiple or a divisor of cluster.gpus_per_node = " + str(gpn));
}

// A step target without a duration runs until the steps are trained: the job must be able to
// train between interruptions, or the simulation would restart it for a century.
void check_run_target(const Scenario& s) {
  const FailureSpec& f = s.failures;
  if (s.run.train_steps == 0 || s.run.duration_s > 0 || f.mtbf_s <= 0) return;
  const double mtti_s = s.mtti_s(s.cluster.nodes);
  if (mtti_s <= f.detection_s + f.restart_s)
    throw InputError(s.source, "failures.mtbf", seconds(f.mtbf_s),
                     "the job is interrupted every " + seconds(mtti_s) + " on average, no longer than detection + " +
                         "restart = " + seconds(f.detection_s + f.restart_s) +
                         ": with run.train_steps it would never finish; set run.duration");
}

// Bounded simulations (issue 19). Steps x micro-batches per stage, and a run's length and its
// expected interruptions and maintenance stops (the checkpoints are counted once the step's
// time is known: sim/run/run_event_budget.hpp).
void check_simulated_work(const Scenario& s) {
  const long long microbatches = static_cast<long long>(s.run.steps) * s.training.grad_accum;
  require(s, microbatches <= k_max_simulated_microbatches, "run.steps", s.run.steps,
          "run.steps x training.grad_accum = " + str(microbatches) + ": " + k_simulated_microbatches_why);
}

void check_run_length(const Scenario& s) {
  const double duration_s = s.run.duration_s;  // at most k_max_run_duration_s (scenario_fields.cpp)
  if (duration_s <= 0) return;
  const auto over = [&](double events) { return events > k_max_run_events; };
  char expected[64];
  const double mtti_s = s.mtti_s(s.cluster.nodes);
  if (mtti_s > 0 && over(duration_s / mtti_s)) {
    std::snprintf(expected, sizeof expected, "%.3g", duration_s / mtti_s);
    throw InputError(s.source, "failures.mtbf", seconds(s.failures.mtbf_s),
                     "the job would be interrupted about " + std::string(expected) + " times in run.duration = " +
                         seconds(duration_s) + " (every " + seconds(mtti_s) +
                         "): at most 1e+06 run events are simulated (about 20 s), so that a run stays bounded in "
                         "time");
  }
  const double every_s = s.failures.maintenance_interval_s;
  if (every_s > 0 && over(duration_s / every_s)) {
    std::snprintf(expected, sizeof expected, "%.3g", duration_s / every_s);
    throw InputError(s.source, "failures.maintenance_interval", seconds(every_s),
                     "about " + std::string(expected) + " maintenance stops in run.duration = " + seconds(duration_s) +
                         ": at most 1e+06 run events are simulated (about 20 s), so that a run stays bounded in time");
  }
}

// Parts ("slow GPUs" of the cluster's `total` "GPUs") drawn (`count`, key `key` + "s") or listed
// (`ids`, key `key` + "_ids"); `numbering` follows the range of ids.
void check_parts(const Scenario& s, const std::string& part, const std::string& unit, const std::string& key, int count,
                 const std::vector<int>& ids, long long total, const std::string& numbering) {
  const std::string drawn = "variations." + key + "s", listed = "variations." + key + "_ids";
  if (count > 0 && !ids.empty())
    throw InputError(s.source, drawn, str(count),
                     "give " + part + " drawn (" + key + "s) or listed (" + key + "_ids), not both");
  require(s, count <= total, drawn, count, "must not exceed the cluster's " + str(total) + " " + unit);
  if (!ids.empty() && ids.back() >= total)
    throw InputError(s.source, listed, str(ids.back()),
                     "ids run from 0 to " + str(total - 1) + " on this cluster" + numbering);
}

// Listed ids (ascending, distinct) numbered `per_group` to a group (a leaf's uplinks, a pod's
// spines): none may list a whole group.
void check_one_left(const Scenario& s, const char* key, const std::vector<int>& ids, int per_group,
                    const std::string& what, const std::string& why) {
  for (size_t i = 0; i + static_cast<size_t>(per_group) <= ids.size(); ++i)
    if (ids[i] / per_group == ids[i + static_cast<size_t>(per_group) - 1] / per_group)
      throw InputError(s.source, key, str(ids[i]), "lists every " + what + " " + str(ids[i] / per_group) + ": " + why);
}

// Uplinks and spines down, drawn or listed, on `fabric`'s switches: the scenario's cluster, or
// with a neighbour the fabric both jobs share (Scenario::fabric), whose ids they name.
void check_down_parts(const Scenario& s, const ClusterSpec& fabric) {
  const VariationSpec& v = s.variations;
  const std::string shared = s.neighbour ? "; the fabric of the job's nodes and its neighbour's" : "";
  if (v.any_down_uplink()) {
    const FabricLayout layout = fabric_layout(fabric);
    if (layout.leaf_uplinks == 0)
      throw InputError(s.source, v.down_uplink_ids.empty() ? "variations.down_uplinks" : "variations.down_uplink_ids",
                       v.down_uplink_ids.empty() ? str(v.down_uplink_count) : str(v.down_uplink_ids.front()),
                       "this fabric has no leaf uplinks (one leaf switch, the single-switch fabric or the ideal "
                       "one)");
    check_parts(s, "uplinks down", "leaf uplinks", "down_uplink", v.down_uplink_count, v.down_uplink_ids,
                static_cast<long long>(layout.leaves) * layout.leaf_uplinks,
                " (leaf x " + str(layout.leaf_uplinks) + " uplinks per leaf + index" + shared + ")");
    check_one_left(s, "variations.down_uplink_ids", v.down_uplink_ids, layout.leaf_uplinks, "uplink of leaf",
                   "a leaf keeps one at least");
  }
  if (v.any_down_spine()) {
    const FabricLayout layout = fabric_layout(fabric);
    if (layout.spines == 0 || layout.leaf_uplinks == 0)
      throw InputError(s.source, v.down_spine_ids.empty() ? "variations.down_spines" : "variations.down_spine_ids",
                       v.down_spine_ids.empty() ? str(v.down_spine_count) : str(v.down_spine_ids.front()),
                       "this fabric has no spine switches (one leaf per pod or rail, the single-switch fabric or "
                       "the ideal one)");
    check_parts(s, "spines down", "spine switches", "down_spine", v.down_spine_count, v.down_spine_ids, layout.spines,
                " (pod or rail x " + str(layout.leaf_uplinks) + " spines per pod or rail + index" + shared + ")");
    check_one_left(s, "variations.down_spine_ids", v.down_spine_ids, layout.leaf_uplinks, "spine of pod or rail",
                   "its leaves keep one at least");
  }
}

// [variations]: slow GPUs and NICs and uplinks down, drawn or listed, within the cluster;
// stragglers in a run.
void check_variations(const Scenario& s) {
  const VariationSpec& v = s.variations;
  check_parts(s, "slow GPUs", "GPUs", "slow_gpu", v.slow_gpu_count, v.slow_gpu_ids,
              static_cast<long long>(s.cluster.nodes) * s.cluster.gpus_per_node, "");
  check_parts(s, "slow NICs", "NICs", "slow_nic", v.slow_nic_count, v.slow_nic_ids,
              static_cast<long long>(s.cluster.nodes) * s.cluster.nics_per_node, " (node x nics_per_node + index)");
  // With a neighbour, its nodes are known only once it is loaded: check_neighbour.
  if (v.neighbour.empty()) check_down_parts(s, s.cluster);
  if (v.straggler_mtbf_s > 0 && !s.run.simulates_run())
    throw InputError(s.source, "variations.straggler_mtbf", seconds(v.straggler_mtbf_s),
                     "stragglers appear during a run: set run.duration or run.train_steps");
  if (v.straggler_mtbf_s > 0 && !v.slow_gpu_ids.empty())
    throw InputError(s.source, "variations.straggler_mtbf", seconds(v.straggler_mtbf_s),
                     "a straggler's step is the step with one more slow GPU drawn: use slow_gpus, not slow_gpu_ids");
  if (v.straggler_mtbf_s > 0 && s.variations.slow_gpu_speed >= 1.0)
    throw InputError(s.source, "variations.straggler_mtbf", seconds(v.straggler_mtbf_s),
                     "a straggler computes at variations.slow_gpu_speed, which is 1 (no slower)");
}

}  // namespace

void check_cluster_size(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  const long long gpus = static_cast<long long>(c.nodes) * c.gpus_per_node;
  const long long nics = static_cast<long long>(c.nodes) * c.nics_per_node;
  const std::string limit = str(k_max_cluster_endpoints);
  require(s, gpus <= k_max_cluster_endpoints, "cluster.nodes", c.nodes,
          "nodes*gpus_per_node = " + str(gpus) + " GPUs: trainsim simulates at most " + limit);
  require(s, nics <= k_max_cluster_endpoints, "cluster.nics_per_node", c.nics_per_node,
          "nodes*nics_per_node = " + str(nics) + " NICs: trainsim simulates at most " + limit);
}

void check_neighbour(const Scenario& s) {
  if (!s.neighbour) return;
  const Scenario& n = *s.neighbour;
  const std::string& file = s.variations.neighbour;
  if (s.run.simulates_run())
    throw InputError(s.source, "variations.neighbour", file,
                     "a neighbour shares a step's time, not a run's: not with run.duration or run.train_steps");
  if (n.variations.any_part())
    throw InputError(n.source, "variations", "(set)", "a neighbour's [variations] must be empty");
  // One platform and one compute model serve both jobs: the neighbour's cluster is the job's
  // but for its nodes, and its kernels are timed alike.
  static const std::vector<ScenarioField> fields = scenario_fields();
  for (const ScenarioField& f : fields) {
    const bool cluster_key =
        f.name.rfind("cluster.", 0) == 0 && f.name != "cluster.nodes" && f.name != "cluster.preset";
    if (!cluster_key && f.name != "training.precision" && f.name != "training.kernel_gap") continue;
    const std::string job = f.show(s);
    const std::string theirs = f.show(n);
    if (job != theirs)
      throw InputError(n.source, f.name, theirs,
                       "must be the job's " + job + " (" + s.source +
                           "): a neighbour runs on the job's cluster, timed by the job's compute model");
  }
  const ClusterSpec& a = s.cluster;
  const ClusterSpec& b = n.cluster;
  // NVL72 racks: each job takes whole racks (a rack's NVLink domain is one job's; the
  // placement moves whole domains, topologies/neighbour_placement.hpp).
  const int rack = a.physical_domain_gpus();
  if (a.gpus_per_domain > 0)
    throw InputError(s.source, "cluster.gpus_per_domain", str(a.gpus_per_domain),
                     "a job beside a neighbour takes whole NVLink domains of " + str(rack) + " GPUs: leave it unset");
  for (const Scenario* job : {&s, &n})
    if (job->cluster.total_gpus() % rack != 0)
      throw InputError(job->source, "cluster.nodes", str(job->cluster.nodes),
                       "beside a neighbour each job takes whole NVLink domains: a multiple of " +
                           str(rack / a.gpus_per_node) + " nodes (" + str(rack) + " GPUs)");
  const long long gpus = static_cast<long long>(a.nodes + b.nodes) * a.gpus_per_node;
  require(s, gpus <= k_max_cluster_endpoints, "variations.neighbour", a.nodes + b.nodes,
          "the two jobs' " + str(gpus) + " GPUs: trainsim simulates at most " + str(k_max_cluster_endpoints));
  // Slow GPUs and NICs are the job's own (their ids its ranks' and nodes'); a cable or spine
  // id names a switch of the fabric both jobs' nodes make.
  check_down_parts(s, s.fabric());
}

void check_scenario_rules(const Scenario& s) {
  check_layout(s);
  check_model(s);
  check_tensor_parallel(s);
  check_tp_overlap(s);
  check_pipeline(s);
  check_context_and_experts(s);
  check_rank_order(s);
  check_hybrid_sharding(s);
  check_megatron_fsdp(s);
  check_cuda_graphs(s);
  check_token_drop(s);  // full_iteration and moe_preprocess on MoE layers (token_drop_fields.hpp)
  check_moe_a2a_overlap(s);
  check_recompute(s);
  check_activation_offload(s);
  check_hardware(s);
  check_precision_recipe(s);
  check_nvlink_domain(s);
  check_in_network_reduction(s);
  check_elastic(s);
  check_run_target(s);
  check_simulated_work(s);
  check_run_length(s);
  check_variations(s);
}

}  // namespace trainsim
