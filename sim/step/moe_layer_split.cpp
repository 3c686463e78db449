#include "sim/step/moe_layer_split.hpp"

#include <algorithm>
#include <iterator>

#include "sim/step/dispatcher_rates.hpp"
#include "sim/step/ep_overlap_cost.hpp"

namespace trainsim {

double pass_seconds(const std::vector<Op>& ops, const ComputeModel& compute, double load) {
  double seconds = 0;
  for (const Op& op : ops) seconds += op_load(op, load) * compute.time_s(op);
  return seconds;
}

double kernel_in_progress_s(const std::vector<Op>& ops, const ComputeModel& compute, double load) {
  double sum = 0, squares = 0;
  for (const Op& op : ops) {
    const double s = op_load(op, load) * compute.time_s(op);
    sum += s;
    squares += s * s / std::max(1, op.kernels);
  }
  return sum > 0 ? squares / (2.0 * sum) : 0.0;
}

MoeLayerSplit moe_layer_split(const std::vector<Op>& ops, const ComputeModel& compute, double load, double host_s,
                              const Scenario& s, double comm_hbm_bytes) {
  MoeLayerSplit split;
  split.layers = 1;
  const auto is_expert = [](const Op& op) { return op.name.rfind("experts.", 0) == 0; };
  const auto first = std::find_if(ops.begin(), ops.end(), is_expert);
  const auto last = std::find_if(ops.rbegin(), ops.rend(), is_expert).base();
  if (first == ops.end()) return split;
  const std::vector<Op> head(ops.begin(), first), experts(first, last), tail(last, ops.end());
  split.head_s = pass_seconds(head, compute, load);
  split.experts_s = pass_seconds(experts, compute, load);
  split.tail_s = pass_seconds(tail, compute, load);
  std::vector<Op> wgrad;
  std::copy_if(first, last, std::back_inserter(wgrad), [](const Op& op) { return op.weight_gradient; });
  split.experts_wgrad_s = pass_seconds(wgrad, compute, load);
  for (const bool across : {false, true}) {
    const int taken = ep_overlap_sms(s, across);
    const auto beside = [&](const std::vector<Op>& part, double alone) {
      return alone > 0 ? beside_ep_s(part, compute, load, s.cluster.gpu, taken, comm_hbm_bytes) / alone : 1.0;
    };
    split.head_beside[across] = beside(head, split.head_s);
    split.experts_beside[across] = beside(experts, split.experts_s);
    split.tail_beside[across] = beside(tail, split.tail_s);
  }
  split.head_kernel_s = kernel_in_progress_s(head, compute, load);
  split.experts_kernel_s = kernel_in_progress_s(experts, compute, load);
  split.tail_kernel_s = kernel_in_progress_s(tail, compute, load);
  const double gpu = split.head_s + split.experts_s + split.tail_s;
  const double scale = gpu > 0 ? (gpu + host_s) / gpu : 1.0;
  for (double* v : {&split.head_s, &split.experts_s, &split.tail_s, &split.experts_wgrad_s}) *v *= scale;
  for (double* v : {&split.head_kernel_s, &split.experts_kernel_s, &split.tail_kernel_s}) *v /= scale;
  return split;
}

void add_moe_layers(MoeLayerSplit& into, const MoeLayerSplit& add, int count) {
  const int layers = into.layers + count;
  if (layers == 0) return;
  const auto mean = [&](double a, double b) { return (a * into.layers + b * count) / layers; };
  const auto ratio = [&](double a, double a_s, double b, double b_s, double none = 1.0) {
    const double total = a_s * into.layers + b_s * count;
    return total > 0 ? (a * a_s * into.layers + b * b_s * count) / total : none;
  };
  MoeLayerSplit sum{layers,
                    mean(into.head_s, add.head_s),
                    mean(into.experts_s, add.experts_s),
                    mean(into.tail_s, add.tail_s),
                    mean(into.experts_wgrad_s, add.experts_wgrad_s),
                    mean(into.paired_host_s, add.paired_host_s)};
  for (size_t i = 0; i < 2; ++i) {
    sum.head_beside[i] = ratio(into.head_beside[i], into.head_s, add.head_beside[i], add.head_s);
    sum.experts_beside[i] = ratio(into.experts_beside[i], into.experts_s, add.experts_beside[i], add.experts_s);
    sum.tail_beside[i] = ratio(into.tail_beside[i], into.tail_s, add.tail_beside[i], add.tail_s);
  }
  sum.head_kernel_s = ratio(into.head_kernel_s, into.head_s, add.head_kernel_s, add.head_s, 0.0);
  sum.experts_kernel_s = ratio(into.experts_kernel_s, into.experts_s, add.experts_kernel_s, add.experts_s, 0.0);
  sum.tail_kernel_s = ratio(into.tail_kernel_s, into.tail_s, add.tail_kernel_s, add.tail_s, 0.0);
  into = sum;
}

}  // namespace trainsim
