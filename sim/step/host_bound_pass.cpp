#include "sim/step/host_bound_pass.hpp"

#include <algorithm>

#include "sim/step/stage_costs.hpp"

namespace trainsim {

HostLaunchCost host_launch_cost(const TrainingSpec& training, HostCpu host) {
  const HostCost measured = host_cost(host);
  return {training.kernel_host_time_s.value_or(measured.op_s),
          training.kernel_launch_time_s.value_or(measured.launch_s)};
}

double host_seconds(const Op& op, HostLaunchCost host) {
  if (!(host.op_s > 0)) return 0.0;
  return host.op_s + std::max(0, op.kernels - 1) * host.launch_s;
}

double graph_host_seconds(const std::vector<Op>& ops, std::size_t i, HostLaunchCost host) {
  const Op& op = ops[i];
  if (op.graph_scope < 0) return host_seconds(op, host);
  // One dispatch launches the graph at its first op; the rest of it costs the host nothing.
  const bool continues = i > 0 && ops[i - 1].graph_scope == op.graph_scope;
  return continues || !(host.op_s > 0) ? 0.0 : host.op_s;
}

std::vector<HostSegment> host_segments(const std::vector<Op>& ops, const ComputeModel& compute, double expert_load,
                                       HostLaunchCost host) {
  std::vector<HostSegment> segments;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (segments.empty() || op.host_sync) {
      if (!segments.empty()) {
        HostSegment& last = segments.back();
        last.host_waits_s = std::max(0.0, last.gpu_s - last.host_s);
      }
      segments.push_back({});
      segments.back().first_op = i;
      segments.back().after_sync = op.host_sync;
    }
    HostSegment& s = segments.back();
    ++s.ops;
    s.kernels += op.kernels;
    s.gpu_s += op_load(op, expert_load) * compute.time_s(op);
    s.host_s += graph_host_seconds(ops, i, host);
  }
  return segments;
}

double host_bound_excess_s(const std::vector<Op>& ops, const ComputeModel& compute, double expert_load,
                           HostLaunchCost host) {
  if (!(host.op_s > 0)) return 0.0;
  double excess = 0;
  for (const HostSegment& s : host_segments(ops, compute, expert_load, host)) excess += s.gpu_waits_s();
  return excess;
}

}  // namespace trainsim
