#include "sim/step/fp8_param_gather.hpp"

#include <algorithm>
#include <string>

#include "models/cast_ops.hpp"
#include "sim/step/fixed_costs.hpp"

namespace trainsim {

namespace {

constexpr double k_fp8_bytes = 1.0;
// Per shard element (fp8_param_gather.hpp): .to(bf16) reads 4 and writes 2, compute_amax reads
// 2, update_quantized reads 2 and writes 1.
constexpr double k_shard_cast_bytes = (4.0 + 2.0) + 2.0 + (2.0 + 1.0);
constexpr int k_shard_cast_kernels = 3;
constexpr int k_linear_weights_per_layer = 4;  // QKV, projection, fc1, fc2
constexpr double k_packed_amax_bytes = 4.0;    // one fp32 a tensor, packed

Op elementwise(std::string name, double bytes, int kernels) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::elementwise;
  op.pass = OpPass::backward;  // with the optimizer, after the backward
  op.bytes = bytes;
  op.kernels = std::max(1, kernels);
  op.calls = op.kernels;
  return op;
}

}  // namespace

bool gathers_fp8_parameters(const Scenario& s) { return s.training.fp8_param_gather; }

int fp8_weight_tensors(int cast_layers) { return k_linear_weights_per_layer * std::max(0, cast_layers); }

double gathered_weight_bytes(const Scenario& s, double weight_bytes, double fp8_parameters,
                             double per_param_weight_bytes) {
  if (!gathers_fp8_parameters(s)) return weight_bytes;
  return std::max(0.0, weight_bytes - fp8_parameters * (per_param_weight_bytes - k_fp8_bytes));
}

int shard_tensors(int tensors, int shard_ranks) {
  if (tensors <= 0) return 0;
  shard_ranks = std::max(1, shard_ranks);
  return std::min(tensors, (tensors + shard_ranks - 1) / shard_ranks + (shard_ranks > 1 ? 1 : 0));
}

std::vector<Op> fp8_shard_cast_ops(const Scenario& s, double fp8_parameters, int shard_ranks, int tensors,
                                   int shard_tensor_count) {
  std::vector<Op> ops;
  if (!gathers_fp8_parameters(s) || fp8_parameters <= 0) return ops;
  const double shard = fp8_parameters / std::max(1, shard_ranks);
  ops.push_back(elementwise("weights.shard_cast", k_shard_cast_bytes * shard, k_shard_cast_kernels * shard_tensor_count));
  if (!s.training.fp8_single_copy)  // Hopper: the transposed copy of the gathered weight
    ops.push_back(elementwise("weights.transpose", 2.0 * k_fp8_bytes * fp8_parameters, tensors));
  return ops;
}

double fp8_param_amax_allreduce_s(const Scenario& s, int tensors) {
  if (!gathers_fp8_parameters(s) || tensors <= 0) return 0.0;
  const ClusterSpec& c = s.cluster;
  const int ranks = s.parallel.dense_shard_ranks();
  // Under Megatron-LM's orders (tp or cp innermost, dp outermost) the data-parallel ranks
  // reach every NVLink domain of the job once the job spans more than one.
  const int domains = std::min(c.domains(), ranks);
  return small_allreduce_s(k_packed_amax_bytes * tensors, ranks, domains,
                           domains > 1 ? c.nic_bandwidth_Bps : c.nvlink_bandwidth_Bps);
}

int fp8_weight_loop_views(int fp8_tensors) {
  // utils.py _cast_master_weights_to_fp8_current_scaling: packed_amaxes[i : i + 1],
  // quantizer.scale.view(1), model_weight._scale_inv.view(1) (delayed scaling: amax, scale,
  // scale_inv .view(1)), for every weight (fp8_param_gather.hpp).
  constexpr int k_views_per_weight = 3;
  return k_views_per_weight * std::max(0, fp8_tensors);
}

int fp8_param_gather_host_ops(int shard_tensor_count) {
  constexpr int k_zeros = 2;         // the overflow flag and the packed amaxes
  constexpr int k_scale_update = 1;  // multi_tensor_compute_scale_and_scale_inv
  constexpr int k_all_reduce = 1;    // the packed amaxes' all-reduce, its framework call
  return k_shard_cast_kernels * shard_tensor_count + k_zeros + k_scale_update + k_all_reduce;
}

void add_weight_casts(StageCosts& st, const Scenario& s, const ComputeModel& compute, double cast_parameters,
                      int cast_layers, double per_param_weight_bytes) {
  if (!gathers_fp8_parameters(s)) {
    if (const auto cast = weight_quantize_op(cast_parameters, s.training)) st.optimizer_s += compute.op_time_s(*cast);
    return;
  }
  const int shards = std::max(1, s.parallel.dense_shard_ranks());
  const int tensors = fp8_weight_tensors(cast_layers);
  for (const Op& op : fp8_shard_cast_ops(s, cast_parameters, shards, tensors, shard_tensors(tensors, shards)))
    st.optimizer_s += compute.op_time_s(op);
  st.fp8_param_amax_allreduce_s = fp8_param_amax_allreduce_s(s, tensors);
  st.dense_weight_bytes = gathered_weight_bytes(s, st.dense_weight_bytes, cast_parameters, per_param_weight_bytes);
}

}  // namespace trainsim
