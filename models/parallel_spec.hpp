#pragma once
// How one training job is split across GPUs: the parallel axes and the pipeline schedule.

#include <algorithm>

#include "models/pipeline_layout.hpp"
#include "models/rank_order.hpp"
#include "models/tp_overlap.hpp"

namespace trainsim {

/// dualpipe: DeepSeek-V3's bidirectional pipeline (sim/schedule/dualpipe_schedule.hpp).
enum class Schedule { gpipe, one_f_one_b, interleaved, zb_h1, dualpipe };
/// How layers are split into model chunks: `cost` balances forward FLOPs (the output layer
/// counted), `even` is Megatron-LM's equal layer count per chunk, `even_with_ends` counts
/// the embedding and the loss as a layer each (Megatron-Core's
/// account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split).
enum class StageSplit { cost, even, even_with_ends };
/// Pipeline sends: `overlapped` (the sender goes on while its activation travels:
/// Megatron-Core's overlap_p2p_comm), `blocking` (the sender waits for its send to finish:
/// Megatron-LM's default batched isend/irecv then wait), or `automatic` (overlapped with the
/// interleaved schedule, where NeMo enables overlap_p2p_comm, blocking otherwise).
enum class PipelineSendOverlap { automatic, overlapped, blocking };
/// How context-parallel ranks see each other's keys and values: `ring` passes K/V blocks
/// around the CP ring while the attention kernels run (Liu et al. 2023, Ring Attention;
/// Transformer Engine cp_comm_type = p2p); `all_gather` gathers the whole sequence's K and V
/// before attention and reduce-scatters their gradients after it, exposed (Llama 3 §3.3.2;
/// Transformer Engine cp_comm_type = all_gather).
enum class CpAlgo { ring, all_gather };
/// Who shards the states under ZeRO 2 and 3: `none`, trainsim's ZeRO as its keys say
/// (zero3_unit_layers, zero3_prefetch; gradients reduced during the last micro-batch's
/// backward); `megatron`, Megatron-Core's Megatron FSDP (use_megatron_fsdp; NVIDIA/Megatron-LM
/// megatron/core/distributed/fsdp/src/README.md @ 00611e6e): each transformer layer is an
/// FSDP unit (fsdp_unit_modules), fsdp_double_buffer keeps two units' parameter and gradient
/// buffers (the unit in use and the next one gathered), and each unit's gradients are
/// reduce-scattered as its backward ends, in every micro-batch, into the sharded gradient
/// buffer; dense units gather and reduce over the dense group, expert units over the expert
/// data-parallel group (expt_device_mesh); under HSDP the outer all-reduce runs once per step.
enum class Fsdp { none, megatron };
/// How MoE tokens reach their experts (models/moe_dispatch.hpp): Megatron-Core's all-to-all
/// token dispatcher (moe_token_dispatcher_type = "alltoall", what the NeMo recipes of
/// public.md A2 run on DGX), or its flex dispatcher with DeepEP's or HybridEP's kernels
/// (moe_flex_dispatcher_backend = "deepep" | "hybridep").
enum class MoeDispatcher { alltoall, deepep, hybridep };

struct ParallelSpec {
  int tp = 1;  ///< tensor parallel
  int pp = 1;  ///< pipeline parallel (stages)
  int dp = 1;  ///< data parallel (replicas); expert parallelism is carved out of it
  int cp = 1;  ///< context parallel (sequence split across ranks)
  int ep = 1;  ///< expert parallel (MoE experts split over ep ranks)
  /// Expert tensor parallelism (Megatron-Core's expert_tensor_parallel_size): the ranks each
  /// expert's MLP is split over. 0: the dense tp. Megatron-Core's MoE parallel folding: the
  /// expert layers decompose a stage's tp x cp x dp ranks afresh as expert_tp x ep x expert
  /// data parallel (Liu et al. 2025, "MoE Parallel Folding", arXiv:2504.14960; Megatron-Core's
  /// expert rank generator reading `order`: models/rank_order.hpp), so EP may span the dense
  /// TP and CP ranks.
  int expert_tp = 0;
  CpAlgo cp_algo = CpAlgo::ring;
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  /// The SMs the flex dispatcher's dispatch and combine kernels run on (Megatron-Core's
  /// moe_flex_dispatcher_num_sms, formerly moe_hybridep_num_sms / moe_deepep_num_sms). 0: the
  /// backend's default (sim/step/stage_costs.hpp, dispatcher_sms).
  int moe_dispatcher_sms = 0;
  bool sequence_parallel = false;
  int zero = 0;  ///< ZeRO stage 0-3; 3 is FSDP-style full sharding
  Fsdp fsdp = Fsdp::none;
  /// Hybrid sharding (PyTorch FSDP's HYBRID_SHARD, "HSDP"; Megatron-Core's
  /// num_distributed_optimizer_instances): ZeRO shards states within groups of this many
  /// gradient-group ranks and replicates them across the groups. 0: the whole group.
  int zero_shard_size = 0;
  Schedule schedule = Schedule::one_f_one_b;
  int virtual_stages = 1;  ///< model chunks per pipeline rank (interleaved schedule)
  /// Interleaved schedule: micro-batches that go through one model chunk before the stage
  /// moves to its next chunk (Megatron-Core's microbatch_group_size_per_vp_stage; Llama 3
  /// §3.3.2's tunable N). 0: pp, Narayanan et al.'s schedule.
  int microbatch_group = 0;
  StageSplit stage_split = StageSplit::cost;
  /// Megatron-Core's pipeline layout (pipeline_model_parallel_layout): when set, it places
  /// every layer, the embedding, the MTP layers and the loss, chunk by chunk, instead of
  /// stage_split (models/pipeline_layout.hpp).
  PipelineLayout pipeline_layout;
  /// Gradients are reduced bucket by bucket during the last backward (Megatron-Core's
  /// overlap_grad_reduce); false: after the whole backward (Megatron-LM 2021, --DDP-impl local).
  bool overlap_grad_reduce = true;
  /// Tensor-parallel communication overlap (Megatron-LM --tp-comm-overlap, Transformer
  /// Engine userbuffers; on in NeMo's recipes): each sequence-parallel all-gather or
  /// reduce-scatter is pipelined with the GEMM that consumes or produces it (Wang et al.
  /// 2022, "Overlap communication with dependent computation via decomposition").
  bool tp_comm_overlap = false;
  /// With tp_comm_overlap: per GEMM, how userbuffers overlap it (method, SMs taken, chunks);
  /// unset ones take the GPU family's default (models/tp_overlap.hpp).
  TpOverlapSettings tp_overlap;
  /// MoE all-to-all overlap (Megatron-Core's overlap_moe_expert_parallel_comm, the combined
  /// 1F1B of megatron/core/pipeline_parallel/combined_1f1b.py): in the steady state a
  /// micro-batch's forward and another's backward run together layer by layer, each one's
  /// token all-to-alls on a communication stream beside the other's compute. The interleaved
  /// schedule runs one more warm-up forward so that each pair is independent (schedules.py).
  bool moe_a2a_overlap = false;
  /// With moe_a2a_overlap: a backward's expert weight-gradient GEMMs run after its dispatch
  /// gradient's all-to-all is issued, beside it (Megatron-Core's delay_wgrad_compute, which
  /// the recipes set with the overlap: Megatron-Bridge scripts/performance/utils/overrides.py).
  bool delay_wgrad_compute = false;
  /// ZeRO-1/2: the updated parameters' all-gather runs beside the next step's first forward
  /// (Megatron-Core's overlap_param_gather) instead of blocking after the update.
  bool overlap_param_gather = false;
  PipelineSendOverlap pp_comm_overlap = PipelineSendOverlap::automatic;
  /// ZeRO-3 / FSDP: layers gathered as one unit, and units gathered ahead of their use.
  int zero3_unit_layers = 1;
  int zero3_prefetch = 1;
  /// Rank-mapping order, innermost (fastest-varying) axis first: Megatron-Core's
  /// tp-cp-ep-dp-pp unless set (models/rank_order.hpp).
  RankOrder order;

  /// True if pipeline senders go on while their activations travel.
  bool pp_sends_overlap() const {
    if (pp_comm_overlap == PipelineSendOverlap::automatic) return schedule == Schedule::interleaved;
    return pp_comm_overlap == PipelineSendOverlap::overlapped;
  }
  /// Warm-up forwards the interleaved schedule runs beyond Megatron-Core's usual count:
  /// one with moe_a2a_overlap (schedules.py, get_pp_rank_microbatches).
  int extra_warmup_chunks() const { return moe_a2a_overlap && schedule == Schedule::interleaved && pp > 1 ? 1 : 0; }
  /// Model chunks each pipeline rank holds: virtual_stages, or with DualPipe two (stage i
  /// and stage pp - 1 - i, DeepSeek-V3 §3.2.1: both directions' copies).
  int chunks_per_rank() const { return schedule == Schedule::dualpipe ? 2 : virtual_stages; }
  /// The interleaved schedule's micro-batch group, N (pp unless set).
  int microbatch_group_size() const { return microbatch_group > 0 ? microbatch_group : pp; }
  int world_size() const { return tp * pp * dp * cp; }
  /// Ranks over which dense gradients are reduced and ZeRO shards states
  /// (Megatron-LM's data-parallel group with context parallelism folded in).
  int gradient_group() const { return dp * cp; }
  /// Ranks over which ZeRO shards dense states (1 without ZeRO).
  int dense_shard_ranks() const {
    if (zero == 0) return 1;
    return zero_shard_size > 0 ? zero_shard_size : gradient_group();
  }
  /// The ranks each expert is split over (expert_tp, or the dense tp).
  int expert_tp_size() const { return expert_tp > 0 ? expert_tp : tp; }
  /// True when the expert layers fold the stage's ranks differently from the dense ones.
  bool expert_folding() const { return expert_tp_size() != tp; }
  /// Ranks of one pipeline stage (tp x cp x dp), which the expert axes decompose.
  int stage_ranks() const { return tp * cp * dp; }
  /// One expert group's ranks: each expert's expert_tp slices times the ep experts' owners.
  int expert_slice() const { return expert_tp_size() * ep; }
  /// Whether a stage's ranks hold whole expert groups (the folding needs it).
  bool whole_expert_groups() const { return stage_ranks() % expert_slice() == 0; }
  /// Expert data parallel: the ranks holding the same experts' same slice.
  int expert_dp() const { return stage_ranks() / expert_slice(); }
  /// Ranks over which ZeRO shards expert states: the ranks of the dense shard group (times
  /// the tp ranks beside each) holding the same experts' same slice.
  int expert_shard_ranks() const {
    return zero == 0 ? 1 : std::max(1, dense_shard_ranks() * tp / expert_slice());
  }
  /// True when Megatron FSDP shards the states (it needs zero >= 2: scenario_fields_parallel.cpp).
  bool megatron_fsdp() const { return fsdp == Fsdp::megatron && zero >= 2; }
  /// True when ZeRO shards within groups smaller than the gradient group (HSDP).
  bool hybrid_sharding() const { return zero >= 1 && zero_shard_size > 0 && zero_shard_size < gradient_group(); }
};

}  // namespace trainsim
