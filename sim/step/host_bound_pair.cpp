#include "sim/step/host_bound_pair.hpp"

#include <algorithm>
#include <cstddef>

#include "sim/step/stage_costs.hpp"

namespace trainsim {

namespace {

bool is_expert(const Op& op) {
  return op.name.rfind("experts.", 0) == 0;
}

// One layer's ops of one pass with their GPU seconds, cut at its experts (the first and last
// experts.* op, as moe_layer_split in stage_costs.cpp cuts them).
struct LayerPass {
  const std::vector<Op>& ops;
  std::vector<double> gpu_s;
  std::size_t first = 0, last = 0;  // [first, last): the experts

  LayerPass(const std::vector<Op>& o, const ComputeModel& compute, double load) : ops(o), gpu_s(o.size()) {
    for (std::size_t i = 0; i < ops.size(); ++i) gpu_s[i] = op_load(ops[i], load) * compute.time_s(ops[i]);
    const auto f = std::find_if(ops.begin(), ops.end(), is_expert);
    const auto l = std::find_if(ops.rbegin(), ops.rend(), is_expert).base();
    first = static_cast<std::size_t>(f - ops.begin());
    last = f == ops.end() ? first : static_cast<std::size_t>(l - ops.begin());
  }
  bool has_experts() const { return first < last; }
  double total_gpu_s() const {
    double t = 0;
    for (const double g : gpu_s) t += g;
    return t;
  }
};

// The host's clock and the GPU's in one launch queue, as host_bound_pass.cpp plays a pass:
// the host dispatches an op's first kernel (an eager op's dispatch, or a graph's launch at its
// first op) and launches each further one; the GPU runs each kernel once launched and once
// the kernel before it has ended.
struct Queue {
  double host_s = 0;
  double gpu_s = 0;
  HostLaunchCost host;

  // Issues ops [from, to) of `p`, those for which `take` holds.
  template <typename Take>
  void issue(const LayerPass& p, std::size_t from, std::size_t to, Take take) {
    for (std::size_t i = from; i < to; ++i) {
      const Op& op = p.ops[i];
      if (!take(op)) continue;
      const bool eager = op.graph_scope < 0;
      const double graph_s = eager ? 0.0 : graph_host_seconds(p.ops, i, host);
      const int kernels = std::max(1, op.kernels);
      for (int k = 0; k < kernels; ++k) {
        host_s += eager ? kernel_launch_seconds(op, k, host) : (k == 0 ? graph_s : 0.0);
        gpu_s = std::max(gpu_s, host_s) + p.gpu_s[i] / kernels;
      }
    }
  }
  void issue(const LayerPass& p, std::size_t from, std::size_t to) {
    issue(p, from, to, [](const Op&) { return true; });
  }
};

}  // namespace

double paired_host_excess_s(const std::vector<Op>& forward, const std::vector<Op>& backward,
                            const ComputeModel& compute, double expert_load, HostLaunchCost host, bool delay_wgrad) {
  if (!(host.op_s > 0)) return 0.0;
  if (std::none_of(forward.begin(), forward.end(), [](const Op& op) { return op.host_sync; })) return 0.0;
  const LayerPass f(forward, compute, expert_load);
  const LayerPass b(backward, compute, expert_load);
  if (!f.has_experts() || !b.has_experts()) return 0.0;
  const auto input_grad = [&](const Op& op) { return !(delay_wgrad && op.weight_gradient); };
  const auto weight_grad = [&](const Op& op) { return delay_wgrad && op.weight_gradient; };
  Queue q{0.0, 0.0, host};
  // Three layers in a row; the period is from the second sync to the third, the queue's
  // state at a sync being the same from the second on.
  double sync_s[3] = {0, 0, 0};
  for (double& at : sync_s) {
    q.issue(b, 0, b.first);  // the combine's gradient
    q.issue(f, 0, f.first);  // attention, router, dispatch preprocess
    const double preprocessed_s = q.gpu_s;
    q.issue(b, b.first, b.last, input_grad);        // mlp.backward
    q.host_s = std::max(q.host_s, preprocessed_s);  // moe_dispatch: the blocking sync
    at = q.host_s;
    q.issue(b, b.first, b.last, weight_grad);  // mlp.backward_dw
    q.issue(f, f.first, f.last);               // the forward's experts
    q.issue(f, f.last, f.ops.size());          // its combine
    q.issue(b, b.last, b.ops.size());          // the backward's attention
  }
  return std::max(0.0, sync_s[2] - sync_s[1] - f.total_gpu_s() - b.total_gpu_s());
}

}  // namespace trainsim
