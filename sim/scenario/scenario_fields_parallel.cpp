// [parallel]: the layout (tp, pp, dp, cp, ep and their rank order), the pipeline schedule, ZeRO and FSDP,
// the MoE dispatcher and the overlaps, and the rules that hold them to the model and the cluster.

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/scenario/field_kinds.hpp"
#include "sim/scenario/pipeline_layout_field.hpp"
#include "sim/scenario/rule_helpers.hpp"
#include "sim/scenario/scenario_sections.hpp"
#include "sim/scenario/tp_overlap_fields.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim::schema {

namespace {

using field_kinds::Rule;
using field_kinds::bool_field;
using field_kinds::enum_field;
using field_kinds::int_field;

const parse::EnumNames<Schedule> k_schedules{{{"gpipe", Schedule::gpipe},
                                              {"1f1b", Schedule::one_f_one_b},
                                              {"interleaved", Schedule::interleaved},
                                              {"zb-h1", Schedule::zb_h1},
                                              {"dualpipe", Schedule::dualpipe}}};
const parse::EnumNames<PipelineSendOverlap> k_pp_overlap{{{"auto", PipelineSendOverlap::automatic},
                                                           {"true", PipelineSendOverlap::overlapped},
                                                           {"false", PipelineSendOverlap::blocking}}};
const parse::EnumNames<StageSplit> k_stage_splits{{{"cost", StageSplit::cost},
                                                   {"even", StageSplit::even},
                                                   {"even-with-ends", StageSplit::even_with_ends}}};
const parse::EnumNames<Fsdp> k_fsdp{{{"none", Fsdp::none}, {"megatron", Fsdp::megatron}}};
const parse::EnumNames<CpAlgo> k_cp_algos{{{"ring", CpAlgo::ring}, {"all-gather", CpAlgo::all_gather}}};
const parse::EnumNames<MoeDispatcher> k_moe_dispatchers{
    {{"alltoall", MoeDispatcher::alltoall}, {"deepep", MoeDispatcher::deepep}, {"hybridep", MoeDispatcher::hybridep}}};

ScenarioField order_field() {
  ScenarioField f;
  f.name = "parallel.order";
  f.help = "rank mapping, innermost axis first, as Megatron-Core's order: tp, cp, ep, dp, pp (some of them) joined "
           "by '-'; default tp-cp-ep-dp-pp";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    const auto order = RankOrder::parse(text);
    if (!order)
      return "expected some of tp, cp, ep, dp, pp, each once, joined by '-' (Megatron-Core's order, e.g. "
             "tp-cp-ep-dp-pp or tp-pp-dp)";
    s.parallel.order = *order;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.parallel.order.text(); };
  return f;
}

}  // namespace

std::vector<ScenarioField> parallel_fields() {
  std::vector<ScenarioField> fields{
      int_field(
          "parallel.tp", "tensor-parallel size", [](auto& s) -> auto& { return s.parallel.tp; }, 1),
      int_field(
          "parallel.pp", "pipeline-parallel size", [](auto& s) -> auto& { return s.parallel.pp; }, 1),
      int_field(
          "parallel.dp", "data-parallel size; default GPUs / (tp pp cp)",
          [](auto& s) -> auto& { return s.parallel.dp; }, 1),
      int_field(
          "parallel.cp", "context-parallel size", [](auto& s) -> auto& { return s.parallel.cp; }, 1),
      int_field(
          "parallel.ep", "expert-parallel size (folded over the stage's tp x cp x dp ranks)",
          [](auto& s) -> auto& { return s.parallel.ep; }, 1),
      int_field(
          "parallel.expert_tp", "expert tensor-parallel size (0 = parallel.tp; MoE parallel folding)",
          [](auto& s) -> auto& { return s.parallel.expert_tp; }, 0),
      enum_field(
          "parallel.cp_algo", "context parallelism: ring (K/V beside attention) or all-gather (Llama 3)",
          [](auto& s) -> auto& { return s.parallel.cp_algo; }, k_cp_algos),
      enum_field(
          "parallel.moe_dispatcher",
          "MoE token dispatcher: alltoall (Megatron-Core's NCCL path), deepep or hybridep (its flex dispatcher)",
          [](auto& s) -> auto& { return s.parallel.moe_dispatcher; }, k_moe_dispatchers),
      int_field(
          "parallel.moe_dispatcher_sms",
          "SMs of deepep's or hybridep's dispatch and combine kernels (0: DeepEP 20, HybridEP 24 or 8 across domains)",
          [](auto& s) -> auto& { return s.parallel.moe_dispatcher_sms; }, 0, 1024, "beyond any GPU's SMs"),
      bool_field(
          "parallel.sequence_parallel", "Megatron sequence parallelism",
          [](auto& s) -> auto& { return s.parallel.sequence_parallel; }),
      int_field(
          "parallel.zero", "ZeRO stage (3 = FSDP full sharding)", [](auto& s) -> auto& { return s.parallel.zero; }, 0,
          3),
      enum_field(
          "parallel.schedule", "pipeline schedule", [](auto& s) -> auto& { return s.parallel.schedule; }, k_schedules),
      int_field(
          "parallel.virtual_stages", "model chunks per pipeline rank (interleaved)",
          [](auto& s) -> auto& { return s.parallel.virtual_stages; }, 1),
      int_field(
          "parallel.microbatch_group",
          "interleaved: micro-batches per model chunk before the next (Llama 3's N; 0 = pp)",
          [](auto& s) -> auto& { return s.parallel.microbatch_group; }, 0),
      enum_field(
          "parallel.stage_split", "layers per model chunk: cost (balanced), even, even-with-ends (Megatron-Core)",
          [](auto& s) -> auto& { return s.parallel.stage_split; }, k_stage_splits),
      pipeline_layout_field(),
      bool_field(
          "parallel.overlap_grad_reduce", "reduce gradients during the last backward",
          [](auto& s) -> auto& { return s.parallel.overlap_grad_reduce; }),
      bool_field(
          "parallel.overlap_param_gather", "ZeRO-1/2: gather updated parameters beside the next forward",
          [](auto& s) -> auto& { return s.parallel.overlap_param_gather; }),
      bool_field(
          "parallel.tp_comm_overlap", "pipeline sequence-parallel collectives with their GEMMs (--tp-comm-overlap)",
          [](auto& s) -> auto& { return s.parallel.tp_comm_overlap; }),
      bool_field(
          "parallel.moe_a2a_overlap",
          "MoE: a forward and a backward run together, each one's all-to-alls beside the other's compute "
          "(overlap_moe_expert_parallel_comm)",
          [](auto& s) -> auto& { return s.parallel.moe_a2a_overlap; }),
      bool_field(
          "parallel.delay_wgrad_compute",
          "with moe_a2a_overlap: a backward's expert weight gradients run beside its dispatch gradient",
          [](auto& s) -> auto& { return s.parallel.delay_wgrad_compute; }),
      enum_field(
          "parallel.pp_comm_overlap", "pipeline senders go on while activations travel (auto: with interleaving)",
          [](auto& s) -> auto& { return s.parallel.pp_comm_overlap; }, k_pp_overlap),
      int_field(
          "parallel.zero_shard_size", "HSDP: ZeRO shards within groups of this many dp x cp ranks (0 = all)",
          [](auto& s) -> auto& { return s.parallel.zero_shard_size; }, 0),
      enum_field(
          "parallel.fsdp", "ZeRO 2/3 as Megatron FSDP runs it (megatron) or as the zero3_* keys say (none)",
          [](auto& s) -> auto& { return s.parallel.fsdp; }, k_fsdp),
      int_field(
          "parallel.zero3_unit_layers", "ZeRO-3: layers gathered as one unit",
          [](auto& s) -> auto& { return s.parallel.zero3_unit_layers; }, 1),
      int_field(
          "parallel.zero3_prefetch", "ZeRO-3: units gathered ahead of their use",
          [](auto& s) -> auto& { return s.parallel.zero3_prefetch; }, 0),
      order_field(),
  };
  // The userbuffers keys follow parallel.tp_comm_overlap (tp_overlap_fields.hpp).
  const auto overlap = std::find_if(fields.begin(), fields.end(),
                                    [](const ScenarioField& f) { return f.name == "parallel.tp_comm_overlap"; });
  const std::vector<ScenarioField> userbuffers = tp_overlap_fields();
  fields.insert(overlap + 1, userbuffers.begin(), userbuffers.end());
  return fields;
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

// DeepSeek-V3 §3.2.1 and deepseek-ai/DualPipe dualpipe/dualpipe.py @ 3da1bbe (DualPipe.step's
// asserts): an even number of ranks, each holding stage i and stage pp - 1 - i, and an even
// micro-batch count of at least 2 pp, half fed from each end.
namespace {
void check_dualpipe(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  require(s, p.pp >= 2 && p.pp % 2 == 0, "parallel.pp", p.pp,
          "the dualpipe schedule needs an even pp >= 2 (each rank holds stage i and stage pp - 1 - i)");
  require(s, p.virtual_stages == 1, "parallel.virtual_stages", p.virtual_stages,
          "the dualpipe schedule holds two chunks per rank of its own; set it to 1");
  require(s, p.microbatch_group == 0, "parallel.microbatch_group", p.microbatch_group,
          "only the interleaved schedule groups micro-batches; leave it at 0");
  const int m = s.training.grad_accum;
  require(s, m % 2 == 0 && m >= 2 * p.pp, "training.grad_accum", m,
          "the dualpipe schedule needs an even micro-batch count of at least 2 x parallel.pp = " + str(2 * p.pp) +
              " (half fed from each end)");
  // Its forward-backward pairs run as parallel.moe_a2a_overlap's do (StageActor::run_pair),
  // modelled beside the layers' TP collectives only.
  const std::string pairs = "the dualpipe schedule's forward-backward pairs are modelled ";
  require(s, p.cp == 1, "parallel.cp", p.cp, pairs + "without context parallelism; set it to 1");
  require(s, !(p.expert_folding() && p.expert_tp_size() > 1), "parallel.expert_tp", p.expert_tp,
          pairs + "without folded expert TP above 1");
  require(s, p.zero <= 2 && !p.megatron_fsdp(), "parallel.zero", p.zero,
          pairs + "without ZeRO-3 or Megatron FSDP unit gathers: needs zero <= 2 and fsdp = none");
}
}  // namespace

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
  } else if (p.schedule == Schedule::dualpipe) {
    check_dualpipe(s);
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
  // DualPipe pairs a forward and a backward of its own (overlapped_forward_backward).
  if (p.pp > 1 && p.schedule != Schedule::interleaved && p.schedule != Schedule::dualpipe)
    refuse("with pipelining Megatron-Core needs virtual stages: needs parallel.schedule = interleaved or dualpipe");
  if (p.schedule == Schedule::zb_h1) refuse("pairs whole backwards: not with parallel.schedule = zb-h1");
  // Folded experts with expert_tp 1 add no collective of their own (stage_costs.cpp).
  if ((p.expert_folding() && p.expert_tp_size() > 1) || p.cp > 1)
    refuse("modelled beside the layers' TP collectives only: needs parallel.cp = 1 and no folded expert_tp > 1");
  if (p.zero >= 3 || p.megatron_fsdp())
    refuse("modelled without ZeRO-3 or Megatron FSDP unit collectives: needs parallel.zero <= 2, fsdp = none");
}

}  // namespace trainsim::schema
