#include "sim/step/loss_host_sync.hpp"

#include <algorithm>

#include "sim/step/fixed_costs.hpp"
#include "sim/step/fp8_param_gather.hpp"
#include "sim/step/host_bound_pass.hpp"
#include "sim/step/step_logging.hpp"

namespace trainsim {

int host_ops_before_norm(const Scenario& s, int layers, int microbatches) {
  // megatron_parallel.py MaskedTokenLossReduction.reduce (loss_host_sync.hpp).
  constexpr int k_checks_per_microbatch = 2;  // `[1] > 0`'s comparison and the host's read of it
  constexpr int k_reduction_ops = 4;          // vstack, its sum, the all-reduce's call, the division
  // clip_grads.py get_grad_norm_fp32: torch.zeros, the multi-tensor L2 norm, its square, the
  // all-reduce's call.
  constexpr int k_norm_ops = 4;
  // distrib_optimizer.py _copy_model_grads_to_main_grads: one .float() per shard tensor (every
  // tensor's without the distributed optimizer), counted as host_ops_after_norm counts the
  // shard's copies.
  const int casts = shard_tensors(parameter_tensors(layers), optimizer_shards(s));
  return k_checks_per_microbatch * std::max(1, microbatches) + k_reduction_ops + casts + k_norm_ops;
}

double host_before_norm_s(const Scenario& s, int layers) {
  if (!s.training.loss_host_sync || s.training.offload == Offload::cpu) return 0.0;
  const HostLaunchCost host = host_launch_cost(s.training, s.cluster.host);
  // The step's metrics logged in the same window (step_logging.hpp).
  return (host_ops_before_norm(s, layers, s.training.grad_accum) + logging_ops_before_norm(s)) * host.op_s +
         k_loss_sync_collective_calls * host.collective_s;
}

}  // namespace trainsim
