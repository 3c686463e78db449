#pragma once
// The parts a step's fixed costs report (sim/step/fixed_costs.hpp and fp8_param_gather.hpp state
// each mechanism and its source): a value type for GpuAccount and StepResult.

namespace trainsim {

/// Seconds per GPU per step of each fixed cost (fixed_costs.hpp), each a part of the
/// breakdown category named.
struct FixedCosts {
  double amax_reductions = 0;      ///< of tp_comm
  double grad_norm_allreduce = 0;  ///< of optimizer
  double host_after_norm = 0;      ///< of optimizer: the GPU idle, waiting for the host's dispatches
  double fp8_param_amax_allreduce = 0;  ///< of optimizer: fp8_param_gather's amax all-reduce
  double host_before_norm = 0;  ///< of optimizer: the GPU idle after the loss's host sync (loss_host_sync.hpp)
  FixedCosts& operator+=(const FixedCosts& o) {
    amax_reductions += o.amax_reductions;
    grad_norm_allreduce += o.grad_norm_allreduce;
    host_after_norm += o.host_after_norm;
    fp8_param_amax_allreduce += o.fp8_param_amax_allreduce;
    host_before_norm += o.host_before_norm;
    return *this;
  }
  FixedCosts scaled(double f) const {
    return {amax_reductions * f, grad_norm_allreduce * f, host_after_norm * f, fp8_param_amax_allreduce * f,
            host_before_norm * f};
  }
};

}  // namespace trainsim
