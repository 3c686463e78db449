#include "sim/step/account_summary.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "models/memory_budget.hpp"

namespace trainsim {

namespace {

// Each time a GPU account holds, and the breakdown field that averages it.
constexpr std::array k_times{std::pair{&StepBreakdown::data, &GpuAccount::data},
                             std::pair{&StepBreakdown::forward, &GpuAccount::forward},
                             std::pair{&StepBreakdown::backward, &GpuAccount::backward},
                             std::pair{&StepBreakdown::recompute, &GpuAccount::recompute},
                             std::pair{&StepBreakdown::optimizer, &GpuAccount::optimizer},
                             std::pair{&StepBreakdown::tp_comm, &GpuAccount::tp_comm},
                             std::pair{&StepBreakdown::pp_comm, &GpuAccount::pp_comm},
                             std::pair{&StepBreakdown::dp_comm, &GpuAccount::dp_comm},
                             std::pair{&StepBreakdown::zero_comm, &GpuAccount::zero_comm},
                             std::pair{&StepBreakdown::ep_comm, &GpuAccount::ep_comm},
                             std::pair{&StepBreakdown::cp_comm, &GpuAccount::cp_comm},
                             std::pair{&StepBreakdown::offload, &GpuAccount::offload}};

// Each byte count a GPU account holds, and the field of CommBytes that averages it.
constexpr std::array k_bytes{
    std::pair{&CommBytes::tp, &GpuAccount::tp_bytes}, std::pair{&CommBytes::pp, &GpuAccount::pp_bytes},
    std::pair{&CommBytes::dp, &GpuAccount::dp_bytes}, std::pair{&CommBytes::zero, &GpuAccount::zero_bytes},
    std::pair{&CommBytes::ep, &GpuAccount::ep_bytes}, std::pair{&CommBytes::cp, &GpuAccount::cp_bytes}};

}  // namespace

StepResult summarize_accounts(const Scenario& s, const std::vector<GpuAccount>& accounts,
                              const std::vector<int>& gpus_per_account, double end_s) {
  const int steps = s.run.steps;
  const double step_time = end_s / steps;
  StepResult r;
  r.steps = steps;
  r.step_time_s = step_time;
  r.gpus = s.cluster.total_gpus();
  r.global_batch_samples = static_cast<double>(s.training.micro_batch) * s.training.grad_accum * s.parallel.dp;
  r.tokens_per_step = r.global_batch_samples * s.model.seq_len;
  r.tokens_per_s = r.tokens_per_step / step_time;
  r.tokens_per_s_per_gpu = r.tokens_per_s / r.gpus;

  double weight_sum = 0, model_flops = 0, hardware_flops = 0, model_flops_full = 0, hardware_flops_full = 0;
  double comm_union = 0, energy = 0, straggler_wait = 0, host_wait = 0;
  std::map<int, double> waited_for;
  const GpuSpec& gpu = s.cluster.gpu;
  for (size_t i = 0; i < accounts.size(); ++i) {
    const GpuAccount& a = accounts[i];
    const double gpus = gpus_per_account[i];
    weight_sum += gpus;
    for (const auto& [average, time] : k_times) r.breakdown_s.*average += gpus * a.*time;
    for (const auto& [average, bytes] : k_bytes) r.comm_bytes_per_gpu.*average += gpus * a.*bytes;
    r.fixed_costs_s += a.fixed.scaled(gpus);
    model_flops += gpus * a.model_flops;
    hardware_flops += gpus * a.hardware_flops;
    model_flops_full += gpus * a.model_flops_full;
    hardware_flops_full += gpus * a.hardware_flops_full;
    comm_union += gpus * a.comm_time(end_s);
    straggler_wait += gpus * a.straggler_wait;
    host_wait += gpus * a.host_wait;
    for (const auto& [replica, wait] : a.waited_for) waited_for[replica] += gpus * wait;
    const double busy = a.forward + a.backward + a.recompute + a.optimizer;
    const double exposed = a.tp_comm + a.pp_comm + a.dp_comm + a.zero_comm + a.ep_comm + a.cp_comm;
    energy += gpus * (busy * gpu.tdp_w + exposed * gpu.comm_power_w + (end_s - busy - exposed) * gpu.idle_power_w);
    r.dp_reductions = std::max(r.dp_reductions, a.dp_reductions / steps);
    if (i < static_cast<size_t>(s.parallel.pp))
      r.inflight_microbatches.push_back(static_cast<double>(a.max_inflight_chunks) / s.parallel.chunks_per_rank());
  }
  for (const auto& field : k_times) r.breakdown_s.*field.first /= weight_sum * steps;
  for (const auto& field : k_bytes) r.comm_bytes_per_gpu.*field.first /= weight_sum * steps;
  r.fixed_costs_s = r.fixed_costs_s.scaled(1.0 / (weight_sum * steps));
  StepBreakdown& b = r.breakdown_s;
  b.idle = std::max(0.0, step_time - b.total());
  const double peak = gpu.peak_flops(s.training.precision);
  const auto per_gpu_tflops = [&](double flops) { return flops / steps / step_time / r.gpus / 1e12; };
  r.model_tflops_per_gpu = per_gpu_tflops(model_flops);
  r.hardware_tflops_per_gpu = per_gpu_tflops(hardware_flops);
  r.mfu = r.model_tflops_per_gpu * 1e12 / peak;
  r.hfu = r.hardware_tflops_per_gpu * 1e12 / peak;
  r.model_tflops_per_gpu_full_attention = per_gpu_tflops(model_flops_full);
  r.hardware_tflops_per_gpu_full_attention = per_gpu_tflops(hardware_flops_full);
  r.mfu_full_attention = r.model_tflops_per_gpu_full_attention * 1e12 / peak;
  r.bubble_fraction = b.idle / step_time;
  r.collective_fraction = comm_union / weight_sum / end_s;
  r.exposed_comm_fraction = (b.tp_comm + b.pp_comm + b.dp_comm + b.zero_comm + b.ep_comm + b.cp_comm) / step_time;
  r.straggler_wait_s = straggler_wait / weight_sum / steps;
  r.host_wait_s = host_wait / weight_sum / steps;
  double most = 0;
  for (const auto& [replica, wait] : waited_for)
    if (wait > most) most = wait, r.most_waited_for_replica = replica;
  r.slow_gpus = static_cast<int>(s.cluster.slow_gpus.size());
  r.energy_per_step_j = energy / steps;
  r.energy_per_token_j = r.energy_per_step_j / r.tokens_per_step;
  r.avg_power_w = r.energy_per_step_j / step_time;
  r.peak_memory_bytes =
      estimate_memory(s.model, s.training, s.parallel, s.gpu_memory_bytes()).peak_stage().bytes.total();
  return r;
}

}  // namespace trainsim
