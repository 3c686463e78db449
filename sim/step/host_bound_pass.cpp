#include "sim/step/host_bound_pass.hpp"

#include <algorithm>

#include "models/cuda_graphs.hpp"
#include "models/graph_replay.hpp"
#include "sim/step/module_host_call.hpp"
#include "sim/step/stage_costs.hpp"

namespace trainsim {

HostLaunchCost host_launch_cost(const TrainingSpec& training, HostCpu host) {
  const HostCost measured = host_cost(host, training.host_stack_factor.value_or(fitted_host_stack_factor()));
  // A stated launch time (training.kernel_launch_time) is the host's speed: the per-expert
  // cuBLASLt set-up, host work too, scales with it, so a stated host prices alike on any CPU.
  const double setup_s = training.kernel_launch_time_s && measured.launch_s > 0
                             ? measured.gemm_setup_s * *training.kernel_launch_time_s / measured.launch_s
                             : measured.gemm_setup_s;
  // So does the host's other work measured beside the ops (a collective call's c10d work, the
  // per-weight gradient work, a tensor view): a stated host time (training.kernel_host_time)
  // scales it as it does the op; `kernel_host_time = 0us`, a free host, makes it free too.
  const auto beside_ops = [&](double measured_s) {
    return training.kernel_host_time_s && measured.op_s > 0 ? measured_s * *training.kernel_host_time_s / measured.op_s
                                                            : measured_s;
  };
  return {training.kernel_host_time_s.value_or(measured.op_s),
          training.kernel_launch_time_s.value_or(measured.launch_s),
          measured.module_factor,
          setup_s,
          beside_ops(measured.collective_s),
          beside_ops(measured.weight_gradient_s),
          beside_ops(measured.tensor_view_s)};
}

namespace {

// The host's own dispatch of `op`'s first kernel.
double own_first_launch_seconds(const Op& op, HostLaunchCost host) {
  switch (host_call(op)) {
    case HostCall::te_module:
      return host.module_factor * host.op_s;
    case HostCall::inside_module:
      return host.launch_s;
    case HostCall::framework_op:
      break;
  }
  return host.op_s;
}

}  // namespace

double weight_gradient_seconds(const Op& op, HostLaunchCost host) {
  if (!(host.op_s > 0) || !op.weight_gradient || op.kind != OpKind::gemm) return 0.0;
  return std::max(1.0, op.gemm.batch) * host.weight_gradient_s;
}

double first_launch_seconds(const Op& op, HostLaunchCost host) {
  if (!(host.op_s > 0)) return 0.0;
  return op.collective_calls * (host.op_s + host.collective_s) + own_first_launch_seconds(op, host) +
         weight_gradient_seconds(op, host);
}

double further_launch_seconds(const Op& op, HostLaunchCost host) {
  if (!(host.op_s > 0)) return 0.0;
  // A grouped GEMM's kernels are its experts' GEMMs (models/layer_workload.cpp, gemm()).
  const bool per_expert_gemm = op.kind == OpKind::gemm && op.gemm.batch > 1;
  return host.launch_s + (per_expert_gemm ? host.gemm_setup_s : 0.0);
}

double kernel_launch_seconds(const Op& op, int k, HostLaunchCost host) {
  if (k == 0) return first_launch_seconds(op, host);
  return k < op.calls ? host.op_s : further_launch_seconds(op, host);
}

double host_seconds(const Op& op, HostLaunchCost host) {
  if (!(host.op_s > 0)) return 0.0;
  double s = 0;
  for (int k = 0; k < std::max(1, op.kernels); ++k) s += kernel_launch_seconds(op, k, host);
  return s;
}

double graph_host_seconds(const std::vector<Op>& ops, std::size_t i, HostLaunchCost host) {
  const Op& op = ops[i];
  if (op.graph_scope < 0) return host_seconds(op, host);
  if (!(host.op_s > 0)) return 0.0;
  // A per-layer graph's autograd function still hands each weight's gradient back to the
  // engine; a full-iteration graph replays the whole backward with no autograd on the host
  // (Megatron-LM full_cuda_graph.py, FullCudaGraphWrapper captures forward_backward_func).
  const bool autograd = op.graph_scope != static_cast<int>(GraphScope::full_iteration);
  const double weights_s = autograd ? weight_gradient_seconds(op, host) : 0.0;
  // The rest of a graph costs the host nothing: its first op's replay launched it.
  if (continues_graph(ops, i)) return weights_s;
  if (!autograd) return host.op_s + weights_s;
  // A per-layer graph's replay (host_bound_pass.hpp) and its copies into the static buffers.
  return host.module_factor * host.op_s + graph_replay_copies(ops, i) * host.op_s + weights_s;
}

namespace {

// The host's clock and the GPU's, in one launch queue (host_bound_pass.hpp).
struct LaunchQueue {
  double host_s = 0;  // when the host has dispatched what it has so far
  double gpu_s = 0;   // when the GPU ends the last kernel launched so far
  // The host dispatches `op` (eager: kernel_launch_seconds before each kernel; a graph:
  // `graph_s` before its first) and the GPU runs its `gpu_time_s` in its kernels, each once
  // launched.
  void issue(const Op& op, double gpu_time_s, HostLaunchCost host, bool eager, double graph_s) {
    const int kernels = std::max(1, op.kernels);
    for (int k = 0; k < kernels; ++k) {
      host_s += eager ? kernel_launch_seconds(op, k, host) : (k == 0 ? graph_s : 0.0);
      gpu_s = std::max(gpu_s, host_s) + gpu_time_s / kernels;
    }
  }
};

// Plays `segments` (cut from `ops`, whose GPU seconds are `gpu_s`) through one launch queue
// from the first sync round to it again, and sets each one's time and host waits.
void play_period(const std::vector<Op>& ops, const std::vector<double>& gpu_s, HostLaunchCost host,
                 std::vector<HostSegment>& segments) {
  const std::size_t n = segments.size();
  std::size_t first = 0;
  while (!segments[first].after_sync) ++first;
  LaunchQueue q;
  double end_s = 0;  // where the segment before ended
  for (std::size_t j = 0; j < n; ++j) {
    HostSegment& s = segments[(first + j) % n];
    for (std::size_t i = s.first_op; i < s.first_op + s.ops; ++i) {
      const Op& op = ops[i];
      // Eager: the dispatch before the first kernel, the launch call before each further one;
      // a graph: one dispatch (at its first op) launches all its kernels.
      const bool eager = op.graph_scope < 0;
      q.issue(op, gpu_s[i], host, eager, eager ? 0.0 : graph_host_seconds(ops, i, host));
    }
    const bool sync_follows = segments[(first + j + 1) % n].after_sync;
    s.host_waits_s = sync_follows ? std::max(0.0, q.gpu_s - q.host_s) : 0.0;
    // At a sync the host waits for the GPU to drain: both clocks meet there.
    const double seg_end_s = sync_follows ? std::max(q.host_s, q.gpu_s) : q.gpu_s;
    if (sync_follows) q.host_s = q.gpu_s = seg_end_s;
    s.time_s = seg_end_s - end_s;
    end_s = seg_end_s;
  }
}

}  // namespace

std::vector<HostSegment> host_segments(const std::vector<Op>& ops, const ComputeModel& compute, double expert_load,
                                       HostLaunchCost host) {
  std::vector<HostSegment> segments;
  std::vector<double> gpu_s(ops.size());
  bool synced = false;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    gpu_s[i] = op_load(op, expert_load) * compute.time_s(op);
    if (segments.empty() || op.host_sync) {
      segments.push_back({});
      segments.back().first_op = i;
      segments.back().after_sync = op.host_sync;
      synced = synced || op.host_sync;
    }
    HostSegment& s = segments.back();
    ++s.ops;
    s.kernels += op.kernels;
    s.gpu_s += gpu_s[i];
    s.host_s += graph_host_seconds(ops, i, host);
  }
  if (synced) {
    play_period(ops, gpu_s, host, segments);
  } else {
    // No sync: a run of such layers settles to the later of the two.
    for (HostSegment& s : segments) s.time_s = std::max(s.gpu_s, s.host_s);
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
