#include "sim/step/host_bound_pass.hpp"

#include <algorithm>

#include "sim/step/stage_costs.hpp"

namespace trainsim {

double host_bound_excess_s(const std::vector<Op>& ops, const ComputeModel& compute, double expert_load,
                           HostLaunchCost host) {
  if (!(host.op_s > 0)) return 0.0;
  double excess = 0, gpu_s = 0, host_s = 0;
  for (const Op& op : ops) {
    if (op.host_sync) {
      excess += std::max(0.0, host_s - gpu_s);
      gpu_s = host_s = 0;
    }
    gpu_s += op_load(op, expert_load) * compute.time_s(op);
    host_s += host.op_s + std::max(0, op.kernels - 1) * host.launch_s;
  }
  return excess + std::max(0.0, host_s - gpu_s);
}

}  // namespace trainsim
