#include "sim/step/fixed_costs.hpp"

#include <algorithm>
#include <cmath>

#include "models/cuda_graphs.hpp"
#include "sim/engine/nccl_latency.hpp"
#include "sim/step/fp8_param_gather.hpp"
#include "sim/step/host_bound_pass.hpp"
#include "sim/step/step_logging.hpp"

namespace trainsim {

bool reduces_amax_over_tp(const Scenario& s) {
  const TrainingSpec& t = s.training;
  const bool current = (t.precision == Precision::fp8 && t.fp8_scaling == Fp8Scaling::current) ||
                       t.precision == Precision::nvfp4;
  return current && s.parallel.tp > 1 && s.parallel.sequence_parallel;
}

double small_allreduce_s(double bytes, int ranks, int domains, double bus_Bps) {
  if (ranks <= 1) return 0.0;
  domains = std::clamp(domains, 1, ranks);
  // Ring all-reduce: 2(n - 1) steps, 2(domains - 1) of them across domains (tuning.cc).
  const engine::NcclEstimate ring = engine::nccl_ring(bytes, ranks, 2.0 * (ranks - 1), 2.0 * (domains - 1), bus_Bps);
  const engine::NcclEstimate tree = engine::nccl_tree(bytes, ranks, domains, bus_Bps);
  return std::min(ring.time_s, tree.time_s);
}

double grad_norm_allreduce_s(int ranks, int domains, double bus_Bps) {
  constexpr double k_bytes = 4.0;  // one fp32: the sum of the squared gradients
  return small_allreduce_s(k_bytes, ranks, domains, bus_Bps);
}

double grad_norm_allreduce_s(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  return grad_norm_allreduce_s(s.parallel.world_size(), c.domains(),
                               c.domains() > 1 ? c.nic_bandwidth_Bps : c.nvlink_bandwidth_Bps);
}

double host_after_norm_s(const Scenario& s, int layers, double gradient_bytes, double optimizer_s) {
  const HostLaunchCost host = host_launch_cost(s.training, s.cluster.host);
  const int ops = host_ops_after_norm(s, layers, gradient_buckets(s, gradient_bytes));
  // fp8_param_gather's amax all-reduce is a c10d call, and its cast loop takes three views of
  // every fp8 weight of the stage (fp8_param_gather.hpp).
  const double collective_s =
      gathers_fp8_parameters(s)
          ? host.collective_s + fp8_weight_loop_views(fp8_weight_tensors(layers)) * host.tensor_view_s
          : 0.0;
  if (!reads_step_metrics(s)) return std::max(0.0, ops * host.op_s + collective_s - optimizer_s);
  // The logger's first read at the end of the step waits for the optimizer's kernels
  // (step_logging.hpp): what the host dispatches before it hides behind them, what follows it
  // (the other reads, then the next step's ops: host_ops_after_step_read) does not.
  const int after_read = host_ops_after_step_read(s);
  const double before_read_s = (ops - after_read + logging_ops_before_read(s)) * host.op_s + collective_s;
  return std::max(0.0, before_read_s - optimizer_s) + (after_read + logging_ops_after_read(s)) * host.op_s;
}

int parameter_tensors(int layers) {
  constexpr int k_tensors_per_layer = 6;  // QKV + its norm, projection, fc1 + its norm, fc2
  constexpr int k_edge_tensors = 3;       // embedding, output layer, final norm
  return k_tensors_per_layer * layers + k_edge_tensors;
}

int optimizer_shards(const Scenario& s) {
  return s.parallel.zero >= 1 ? std::max(1, s.parallel.dense_shard_ranks()) : 1;
}

int host_ops_after_norm(const Scenario& s, int layers, int buckets) {
  constexpr int k_adam_groups = 2;  // weight decay and none: one multi-tensor launch each
  const ParallelSpec& p = s.parallel;
  const int tensors = parameter_tensors(layers);
  const int shards = optimizer_shards(s);
  // fp8_param_gather: the fp8 weights' shards are cast, not copied (fp8_param_gather.hpp).
  const int fp8_tensors = gathers_fp8_parameters(s) ? fp8_weight_tensors(layers) : 0;
  const int copies = shard_tensors(tensors - fp8_tensors, shards) +
                     (fp8_tensors > 0 ? fp8_param_gather_host_ops(shard_tensors(fp8_tensors, shards)) : 0);
  // The distributed optimizer's parameter all-gather after the update, one launch per bucket
  // unless overlapped with the next forward (ZeRO 1 and 2). Under ZeRO 3 / FSDP parameters are
  // gathered before each unit's forward and backward instead (parameter_gathers.cpp), not
  // after the norm.
  const int gathers = (p.zero == 1 || p.zero == 2) && !p.overlap_param_gather ? buckets : 0;
  return k_adam_groups + copies + gathers + host_ops_after_step_read(s);
}

int host_ops_after_step_read(const Scenario& s) {
  constexpr int k_buffer_resets = 1;  // the gradient buffer's zero_
  constexpr int k_next_step = 1;      // the next step's graph replay or first op
  // Under a full-iteration graph, the next step's batches copied into the graph's static
  // buffers before its replay, one copy per tensor (fixed_costs.hpp).
  constexpr int k_batch_tensors = 4;  // tokens, labels, loss_mask, position_ids
  const int batch_copies =
      s.training.cuda_graphs.has(GraphScope::full_iteration) ? k_batch_tensors * std::max(1, s.training.grad_accum) : 0;
  return k_buffer_resets + batch_copies + k_next_step;
}

int gradient_buckets(const Scenario& s, double gradient_bytes) {
  const double bucket = s.training.dp_bucket_bytes;
  if (bucket <= 0 || gradient_bytes <= 0) return 1;
  return std::max(1, static_cast<int>(std::ceil(gradient_bytes / bucket)));
}

}  // namespace trainsim
