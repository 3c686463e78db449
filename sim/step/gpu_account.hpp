#pragma once
// Where one simulated GPU's time went, accumulated by a stage actor.

#include <map>
#include <utility>
#include <vector>

#include "sim/step/fixed_cost_parts.hpp"

namespace trainsim {

struct GpuAccount {
  double data = 0;
  double forward = 0;
  double backward = 0;
  double recompute = 0;
  double optimizer = 0;
  FixedCosts fixed;  ///< the step's fixed costs, parts of the categories (fixed_costs.hpp)
  double tp_comm = 0;
  double pp_comm = 0;
  double dp_comm = 0;
  double zero_comm = 0;  ///< ZeRO parameter all-gathers waited for
  double ep_comm = 0;
  double cp_comm = 0;
  double offload = 0;  ///< waiting for activation copies over the host link
  /// Of forward, backward and recompute: the GPU waiting for the host's launches (PassCost::host_s).
  double host_wait = 0;
  /// Of dp_comm and zero_comm: waiting for slower replicas to ask for a gradient-group
  /// collective (replica_rendezvous.hpp).
  double straggler_wait = 0;
  std::map<int, double> waited_for;  ///< of straggler_wait, by the replica waited for
  /// Bytes this GPU moves per category (the collectives' bus bytes: size x bus factor).
  double tp_bytes = 0;
  double pp_bytes = 0;
  double dp_bytes = 0;
  double zero_bytes = 0;
  double ep_bytes = 0;
  double cp_bytes = 0;
  double model_flops = 0;          ///< causal attention halved, no recomputation (MFU)
  double hardware_flops = 0;       ///< what the kernels execute, recomputation included (HFU)
  double model_flops_full = 0;     ///< attention in full, no recomputation (Megatron eq. 3 / PaLM)
  double hardware_flops_full = 0;  ///< attention in full, recomputation included (Megatron eq. 3)
  int dp_reductions = 0;
  int inflight_chunks = 0;      ///< (micro-batch, chunk) forwards whose backward has not run
  int max_inflight_chunks = 0;  ///< the most at once: the activations the stage holds

  void add_comm_interval(double start_s, double end_s) { comm_intervals_.emplace_back(start_s, end_s); }
  /// Time at least one communication involving this GPU ran, seconds, up to `end_s`.
  double comm_time(double end_s) const;

 private:
  std::vector<std::pair<double, double>> comm_intervals_;
};

}  // namespace trainsim
