#include "sim/sweep/step_summary.hpp"

#include <limits>

namespace trainsim::sweep {

const std::vector<std::string>& summary_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"step_time_s",
                                  "gpus",
                                  "global_batch_samples",
                                  "tokens_per_step",
                                  "tokens_per_s",
                                  "tokens_per_s_per_gpu",
                                  "model_tflops_per_gpu",
                                  "hardware_tflops_per_gpu",
                                  "mfu",
                                  "hfu",
                                  "bubble_fraction",
                                  "collective_fraction",
                                  "exposed_comm_fraction",
                                  "breakdown_data_s",
                                  "breakdown_forward_s",
                                  "breakdown_backward_s",
                                  "breakdown_recompute_s",
                                  "breakdown_optimizer_s",
                                  "breakdown_tp_comm_s",
                                  "breakdown_pp_comm_s",
                                  "breakdown_dp_comm_s",
                                  "breakdown_idle_s",
                                  "peak_memory_bytes",
                                  "energy_per_step_j",
                                  "energy_per_token_j",
                                  "avg_power_w",
                                  "dp_reductions_per_step",
                                  "steps"};
    RunResult r;
    for_each_run_field(r, [&n](const char* name, auto&) { n.push_back(std::string(k_run_metric_prefix) + name); });
    return n;
  }();
  return names;
}

std::vector<double> summary_metrics(const StepResult& r, const std::optional<RunResult>& run) {
  const StepBreakdown& b = r.breakdown_s;
  std::vector<double> values = {r.step_time_s,
                                static_cast<double>(r.gpus),
                                r.global_batch_samples,
                                r.tokens_per_step,
                                r.tokens_per_s,
                                r.tokens_per_s_per_gpu,
                                r.model_tflops_per_gpu,
                                r.hardware_tflops_per_gpu,
                                r.mfu,
                                r.hfu,
                                r.bubble_fraction,
                                r.collective_fraction,
                                r.exposed_comm_fraction,
                                b.data,
                                b.forward,
                                b.backward,
                                b.recompute,
                                b.optimizer,
                                b.tp_comm,
                                b.pp_comm,
                                b.dp_comm,
                                b.idle,
                                r.peak_memory_bytes,
                                r.energy_per_step_j,
                                r.energy_per_token_j,
                                r.avg_power_w,
                                static_cast<double>(r.dp_reductions),
                                static_cast<double>(r.steps)};
  RunResult none;
  for_each_run_field(run ? *run : none, [&](const char*, const auto& value) {
    values.push_back(run ? static_cast<double>(value) : std::numeric_limits<double>::quiet_NaN());
  });
  return values;
}

}  // namespace trainsim::sweep
