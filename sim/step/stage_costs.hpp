#pragma once
// What one training step asks of each pipeline rank, before any simulation: the compute
// time of every (micro-batch, chunk, pass) from the compute model, the tensor-parallel
// collectives each pass issues, the pipeline activations sent between stages, and the
// gradients reduced across data-parallel ranks. The step simulation (step_simulation.hpp)
// plays these on SimGrid.

#include <array>
#include <vector>

#include "sim/compute/compute_model.hpp"
#include "sim/engine/collective.hpp"
#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// The group a pass's collective runs on.
enum class CommGroup { tp, ep, etp };

/// `count` collectives of `bytes` each (nccl-tests size convention) on the pass's group.
struct GroupCollective {
  CommGroup group = CommGroup::tp;
  engine::CollectiveOp op = engine::CollectiveOp::all_reduce;
  double bytes = 0;
  int count = 0;
  /// Seconds of the pass's compute each of them runs beside (parallel.tp_comm_overlap: the
  /// GEMM it is pipelined with); 0: it blocks compute.
  double overlap_s = 0;
  /// The layers `count` spans, count / layers in each (the step plays them layer by layer,
  /// between the layers' compute); 0: once per pass, after its compute (embedding, output).
  int layers = 0;
  /// The MoE layers' token all-to-all (dispatch and combine, two a layer), as against the
  /// dispatcher's other collectives on the EP group (token counts, routing probabilities).
  bool tokens = false;
  /// The seconds that GEMM takes beside it: slower by the SMs and HBM bandwidth the
  /// collective's userbuffers kernels take (tp_overlap_cost.hpp); overlap_s alone.
  double beside_s = 0;
  /// Current scaling's amax all-reduce before a sequence-parallel operand's cast
  /// (sim/step/fixed_costs.hpp): accounted as the amax_reductions part of tp_comm.
  bool amax = false;
};

/// One MoE layer's compute in a pass, cut where its token all-to-alls fall, as the combined
/// 1F1B of parallel.moe_a2a_overlap plays it (stage_pair.cpp, StagePair::run): before the first
/// (forward: attention, router and permutation; backward: the unpermutation's gradient),
/// between them (the experts) and after the second. The layer's seconds as the step charges
/// them, the host's wait shared in proportion.
struct MoeLayerSplit {
  int layers = 0;  ///< the pass's MoE layers
  double head_s = 0, experts_s = 0, tail_s = 0;
  double experts_wgrad_s = 0;  ///< of experts_s, the weight gradients (parallel.delay_wgrad_compute)
  /// A forward's, in a pair: what the host's pace adds after the dropless sync beyond both
  /// passes' own waits (host_bound_pair.hpp), on the forward's experts.
  double paired_host_s = 0;
  /// Each part's seconds beside a pair's expert-parallel collective over its seconds alone
  /// (ep_overlap_cost.hpp: the SMs the dispatcher's kernels hold, the HBM its bytes share),
  /// with the expert group inside one NVLink domain [0] or across domains [1].
  std::array<double, 2> head_beside{1.0, 1.0}, experts_beside{1.0, 1.0}, tail_beside{1.0, 1.0};
  /// Each part's mean rest of its kernel in progress: what a collective's kernel launched on
  /// the pair's communication stream beside it waits for SMs (moe_layer_split.hpp).
  double head_kernel_s = 0, experts_kernel_s = 0, tail_kernel_s = 0;
};

/// One micro-batch through one model chunk, one pass, on one GPU.
struct PassCost {
  double compute_s = 0;           ///< all of the pass's kernels, those beside overlapped collectives included
  double overlapped_s = 0;        ///< of compute_s, what runs beside collectives (sum of count x overlap_s)
  double attention_s = 0;         ///< of compute_s, the attention kernels (what ring attention overlaps)
  /// Of attention_s, the kernels ring attention's K/V exchange runs beside (Op::beside_cp_exchange;
  /// the rest wait for it: models/cp_ring_attention.hpp).
  double cp_hidden_s = 0;
  double model_flops = 0;         ///< attention in full: Megatron-LM eq. 3 / PaLM
  double causal_model_flops = 0;  ///< attention at its causal half (for MFU)
  double executed_flops = 0;      ///< what the kernels execute
  double executed_bytes = 0;      ///< the HBM bytes the kernels read and write (Op::bytes)
  /// What compute_s's kernels take longer while they run beside NCCL's gradient and parameter
  /// collectives, each op at its own slowdown (nccl_overlap.hpp: nccl_op_slowdown).
  double nccl_extra_s = 0;
  /// Blocking, as in Megatron-LM: TP all-reduces (or SP all-gathers / reduce-scatters) and
  /// MoE token all-to-alls.
  std::vector<GroupCollective> collectives;
  /// Context parallelism: K/V bytes each rank gathers (as an all-gather, nccl-tests size):
  /// with cp_algo = ring around the CP ring, overlapped with the attention kernels (Liu et
  /// al. 2023, Ring Attention; the backward's ring carries dK/dV beside K/V, twice the bytes);
  /// with all-gather before them, exposed.
  double cp_gather_bytes = 0;
  /// cp_algo = all-gather, backward: the K/V gradient bytes reduce-scattered after the
  /// attention kernels (Llama 3 §3.3.2), exposed.
  double cp_reduce_bytes = 0;
  /// Activation offloading (training.offload_activations): the seconds the pass waits for
  /// its layers' copies over the host link beyond the compute that hides them.
  double offload_s = 0;
  double offload_bytes = 0;  ///< copied over the host link (out in the forward, back in the backward)
  /// The GPU waiting for the host's kernel launches (host_bound_pass.hpp: the
  /// host's pace, and after a dropless MoE layer's device-to-host sync its empty queue).
  double host_s = 0;
  /// Of host_s, not in compute_s: the layers' whose pass has no host sync. The host launches
  /// on while the pass's blocking collectives (TP, EP) hold the stream, so they hide it
  /// (stage_waits.cpp, host_beside_collectives).
  double hideable_host_s = 0;
  MoeLayerSplit moe;         ///< its MoE layers' compute, a layer's mean (set with parallel.moe_a2a_overlap)
};

struct ChunkCosts {
  int global_chunk = 0;  ///< chunk * pp + stage
  int layers = 0;
  PassCost forward;
  PassCost recompute;  ///< forward work repeated before backward
  PassCost backward;   ///< input gradients (+ weight gradients unless the schedule defers them)
  PassCost weight;     ///< deferred weight gradients (zero-bubble schedules), else empty
  /// Its dense gradient buffer's tensors in backward order, in parameters on this GPU
  /// (models/gradient_tensors.hpp): what Megatron-Core cuts its buckets from.
  std::vector<double> gradient_tensors;
};

struct StageCosts {
  int stage = 0;
  std::vector<ChunkCosts> chunks;    ///< this rank's chunks, chunk index 0..virtual_stages-1
  double dense_gradient_bytes = 0;   ///< reduced over the dp x cp ranks each step
  double expert_gradient_bytes = 0;  ///< reduced over dp x cp / ep ranks
  double dense_weight_bytes = 0;     ///< gathered after the update by ZeRO-1/2 (training-precision weights)
  double expert_weight_bytes = 0;
  double optimizer_s = 0;
  /// Of what follows the optimizer's kernels (sim/step/fixed_costs.hpp): the gradient norm's
  /// all-reduce, and the GPU's wait for the host's dispatches after the norm's host sync.
  double grad_norm_allreduce_s = 0;
  double host_after_norm_s = 0;
  /// training.loss_host_sync: the GPU's wait for the host's dispatches between the loss's host
  /// sync and the norm's all-reduce (sim/step/loss_host_sync.hpp).
  double host_before_norm_s = 0;
  /// fp8_param_gather: the packed amax all-reduce before the shard casts (fp8_param_gather.hpp).
  double fp8_param_amax_allreduce_s = 0;
  /// ZeRO-3: the parameter bytes one unit of zero3_unit_layers layers gathers on this GPU
  /// (the all-gather's output), and the units of each chunk. Megatron FSDP gathers a unit's
  /// dense parameters over the dense group (zero3_unit_bytes) and its experts' over the
  /// expert group (zero3_unit_expert_bytes).
  double zero3_unit_bytes = 0;
  double zero3_unit_expert_bytes = 0;
  std::vector<int> zero3_units;  ///< per chunk
  /// CPU offload: bytes over the host link each step (gradient shard down, parameters up),
  /// and the host's optimizer time.
  double offload_bytes = 0;
  double host_optimizer_s = 0;

  /// The transformer layers of all this rank's chunks.
  double gradient_bytes() const { return dense_gradient_bytes + expert_gradient_bytes; }
  int layers() const {
    int n = 0;
    for (const ChunkCosts& c : chunks) n += c.layers;
    return n;
  }
};

struct StepCosts {
  std::vector<StageCosts> stages;
  double activation_bytes = 0;  ///< sent between adjacent stages per micro-batch, each way
  int microbatches = 0;
};

/// How much of `op` the step charges one GPU for: `expert_load` for expert ops (the busiest
/// expert-parallel rank's tokens over the balanced share, models/expert_load.hpp: the group
/// waits for that rank), 1 for the rest. The op's time is this times the compute model's.
double op_load(const Op& op, double expert_load);


/// Costs of one step of `scenario`, timed by `compute`. `defer_weight_gradients` splits
/// each backward into input- and weight-gradient passes (zero-bubble schedules).
StepCosts build_step_costs(const Scenario& scenario, const ComputeModel& compute, bool defer_weight_gradients);

}  // namespace trainsim
