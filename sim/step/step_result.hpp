#pragma once
// What one simulated training step reports (`trainsim run --json`).

#include <optional>
#include <vector>

#include "sim/step/fixed_cost_parts.hpp"

namespace trainsim {

/// A neighbour job's steps played beside the job's (variations.neighbour): per step, averaged
/// over the steps it began while the job stepped (its last one may end after the job's).
struct NeighbourStep {
  int gpus = 0;
  int steps = 0;
  double step_time_s = 0;
  double tokens_per_s_per_gpu = 0;
};

/// Where a GPU's step time goes, seconds, averaged over GPUs; sums to the step time.
/// Communication categories count only time the GPU waits for it (exposed).
struct StepBreakdown {
  double data = 0;  ///< waiting for the input pipeline
  double forward = 0;
  double backward = 0;   ///< input and weight gradients
  double recompute = 0;  ///< forward work repeated in backward
  double optimizer = 0;
  double tp_comm = 0;    ///< tensor-parallel collectives (they block compute)
  double pp_comm = 0;    ///< pipeline transfers not hidden
  double dp_comm = 0;    ///< gradient reduction not hidden by backward
  double zero_comm = 0;  ///< ZeRO parameter all-gathers not hidden by compute
  double ep_comm = 0;    ///< MoE token all-to-alls (they block compute)
  double cp_comm = 0;    ///< ring-attention K/V exchange not hidden by attention
  double offload = 0;    ///< activation copies over the host link not hidden by compute
  double idle = 0;       ///< waiting on pipeline dependencies (the bubble)
  double total() const {
    return data + forward + backward + recompute + optimizer + tp_comm + pp_comm + dp_comm + zero_comm + ep_comm +
           cp_comm + offload + idle;
  }
};

/// Bytes one GPU moves per step, by category: each collective's size times its bus factor
/// (2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for a
/// transfer; nccl-tests doc/PERFORMANCE.md), averaged over the simulated GPUs.
struct CommBytes {
  double tp = 0;
  double pp = 0;
  double dp = 0;    ///< gradient reduction (all-reduce, or reduce-scatter with ZeRO)
  double zero = 0;  ///< ZeRO parameter all-gathers
  double ep = 0;
  double cp = 0;
};

struct StepResult {
  double step_time_s = 0;
  int gpus = 0;
  double global_batch_samples = 0;
  double tokens_per_step = 0;
  double tokens_per_s = 0;
  double tokens_per_s_per_gpu = 0;
  // FLOP conventions (sim/step/README.md, "FLOPs and utilization"): model FLOPs leave recomputation out,
  // hardware FLOPs count it (PaLM, Chowdhery et al. 2022, App. B; Megatron-LM). Model FLOPs
  // count causal attention at the half a causal mask needs (as Megatron-Bridge's model
  // TFLOP/s does); hardware FLOPs are what the kernels execute (fused causal attention: half
  // of the scores, its backward 2.5x its forward; unfused: every score). So HFU <= 1 and
  // MFU <= HFU. The *_full_attention fields count attention in full, as Megatron-LM's eq. 3
  // and PaLM's formula do.
  double model_tflops_per_gpu = 0;  ///< model FLOP/s per GPU, /1e12
  double hardware_tflops_per_gpu = 0;  ///< executed FLOP/s per GPU, recomputation included, /1e12
  double mfu = 0;                    ///< model FLOP/s per GPU over the GPU's dense peak for the precision
  double hfu = 0;                    ///< hardware FLOP/s over the peak
  double model_tflops_per_gpu_full_attention = 0;     ///< attention in full, no recomputation
  double hardware_tflops_per_gpu_full_attention = 0;  ///< attention in full, recomputation included (eq. 3)
  double mfu_full_attention = 0;
  double bubble_fraction = 0;        ///< idle / step time, averaged over GPUs
  double collective_fraction = 0;    ///< time collectives run (hidden or not) / step time
  double exposed_comm_fraction = 0;  ///< communication the GPU waits for / step time
  StepBreakdown breakdown_s;
  CommBytes comm_bytes_per_gpu;
  /// Of the breakdown, the step's fixed costs by name (fixed_costs.hpp, fp8_param_gather.hpp):
  /// amax_reductions of tp_comm, grad_norm_allreduce, host_after_norm,
  /// fp8_param_amax_allreduce and host_before_norm (loss_host_sync.hpp) of optimizer. Per GPU,
  /// averaged.
  FixedCosts fixed_costs_s;
  double peak_memory_bytes = 0;
  double energy_per_step_j = 0;
  double energy_per_token_j = 0;
  double avg_power_w = 0;
  int dp_reductions = 0;  ///< gradient reductions started per step per stage (bucketed)
  int slow_gpus = 0;      ///< GPUs slower than the others ([variations])
  /// Of dp_comm and zero_comm, per GPU: waiting for slower replicas to join a gradient-group
  /// collective (what slow GPUs cost the others at the step's end).
  double straggler_wait_s = 0;
  /// Of forward, backward and recompute, per GPU: the GPU waiting for the host's kernel
  /// launches (sim/step/host_bound_pass.hpp); `trainsim run` prints it as "host-bound".
  double host_wait_s = 0;
  /// The replica the GPUs waited for most at those collectives (-1: none); not in the
  /// trace's summary (trainsim run says it with the slow GPUs).
  int most_waited_for_replica = -1;
  /// The neighbour job's steps, when one played beside (sweep columns neighbour_*, the trace's
  /// /summary attributes neighbour_*; not in step_fields).
  std::optional<NeighbourStep> neighbour;
  /// Per pipeline stage: the most micro-batches whose activations it held at once (chunks / v).
  std::vector<double> inflight_microbatches;
  int steps = 0;          ///< simulated steps (the results are per step, averaged)
  double sim_wall_s = 0;  ///< wall-clock time of the simulation (not deterministic)
};

}  // namespace trainsim
