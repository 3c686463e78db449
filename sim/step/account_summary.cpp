#include "sim/step/account_summary.hpp"

#include <algorithm>

#include "models/memory_budget.hpp"

namespace trainsim {

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
  double comm_union = 0, energy = 0;
  const GpuSpec& gpu = s.cluster.gpu;
  for (size_t i = 0; i < accounts.size(); ++i) {
    const GpuAccount& a = accounts[i];
    const double gpus = gpus_per_account[i];
    weight_sum += gpus;
    StepBreakdown& b = r.breakdown_s;
    b.data += gpus * a.data;
    b.forward += gpus * a.forward;
    b.backward += gpus * a.backward;
    b.recompute += gpus * a.recompute;
    b.optimizer += gpus * a.optimizer;
    b.tp_comm += gpus * a.tp_comm;
    b.pp_comm += gpus * a.pp_comm;
    b.dp_comm += gpus * a.dp_comm;
    b.zero_comm += gpus * a.zero_comm;
    b.ep_comm += gpus * a.ep_comm;
    b.cp_comm += gpus * a.cp_comm;
    CommBytes& cb = r.comm_bytes_per_gpu;
    cb.tp += gpus * a.tp_bytes;
    cb.pp += gpus * a.pp_bytes;
    cb.dp += gpus * a.dp_bytes;
    cb.zero += gpus * a.zero_bytes;
    cb.ep += gpus * a.ep_bytes;
    cb.cp += gpus * a.cp_bytes;
    model_flops += gpus * a.model_flops;
    hardware_flops += gpus * a.hardware_flops;
    model_flops_full += gpus * a.model_flops_full;
    hardware_flops_full += gpus * a.hardware_flops_full;
    comm_union += gpus * a.comm_time(end_s);
    const double busy = a.forward + a.backward + a.recompute + a.optimizer;
    const double exposed = a.tp_comm + a.pp_comm + a.dp_comm + a.zero_comm + a.ep_comm + a.cp_comm;
    energy += gpus * (busy * gpu.tdp_w + exposed * gpu.comm_power_w + (end_s - busy - exposed) * gpu.idle_power_w);
    r.dp_reductions = std::max(r.dp_reductions, a.dp_reductions / steps);
    if (i < static_cast<size_t>(s.parallel.pp))
      r.inflight_microbatches.push_back(static_cast<double>(a.max_inflight_chunks) / s.parallel.virtual_stages);
  }
  StepBreakdown& b = r.breakdown_s;
  for (double* v : {&b.data, &b.forward, &b.backward, &b.recompute, &b.optimizer, &b.tp_comm, &b.pp_comm, &b.dp_comm,
                    &b.zero_comm, &b.ep_comm, &b.cp_comm})
    *v /= weight_sum * steps;
  CommBytes& cb = r.comm_bytes_per_gpu;
  for (double* v : {&cb.tp, &cb.pp, &cb.dp, &cb.zero, &cb.ep, &cb.cp}) *v /= weight_sum * steps;
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
  r.energy_per_step_j = energy / steps;
  r.energy_per_token_j = r.energy_per_step_j / r.tokens_per_step;
  r.avg_power_w = r.energy_per_step_j / step_time;
  r.peak_memory_bytes =
      estimate_memory(s.model, s.training, s.parallel, s.gpu_memory_bytes()).peak_stage().bytes.total();
  return r;
}

}  // namespace trainsim
