#pragma once
// Every metric of a StepResult with its name in `trainsim run --json`: one list for the JSON,
// the trace's /summary and a sweep's columns, so that they cannot drift apart.

#include <string>

#include "sim/core/checked_output.hpp"
#include "sim/step/step_result.hpp"

namespace trainsim {

/// Calls visit(group, name, value) for each metric in `--json` order. `group` is nullptr for a
/// top-level key, else the nested object it sits in ("breakdown_s", "comm_bytes_per_gpu").
/// sim_wall_s (wall-clock time, not deterministic) and the per-stage inflight_microbatches
/// are not in the list.
template <class Result, class Visit>
void for_each_step_field(Result& r, Visit&& visit) {
  visit(nullptr, "step_time_s", r.step_time_s);
  visit(nullptr, "gpus", r.gpus);
  visit(nullptr, "global_batch_samples", r.global_batch_samples);
  visit(nullptr, "tokens_per_step", r.tokens_per_step);
  visit(nullptr, "tokens_per_s", r.tokens_per_s);
  visit(nullptr, "tokens_per_s_per_gpu", r.tokens_per_s_per_gpu);
  visit(nullptr, "model_tflops_per_gpu", r.model_tflops_per_gpu);
  visit(nullptr, "hardware_tflops_per_gpu", r.hardware_tflops_per_gpu);
  visit(nullptr, "mfu", r.mfu);
  visit(nullptr, "hfu", r.hfu);
  visit(nullptr, "model_tflops_per_gpu_full_attention", r.model_tflops_per_gpu_full_attention);
  visit(nullptr, "hardware_tflops_per_gpu_full_attention", r.hardware_tflops_per_gpu_full_attention);
  visit(nullptr, "mfu_full_attention", r.mfu_full_attention);
  visit(nullptr, "bubble_fraction", r.bubble_fraction);
  visit(nullptr, "collective_fraction", r.collective_fraction);
  visit(nullptr, "exposed_comm_fraction", r.exposed_comm_fraction);
  auto& b = r.breakdown_s;
  visit("breakdown_s", "data", b.data);
  visit("breakdown_s", "forward", b.forward);
  visit("breakdown_s", "backward", b.backward);
  visit("breakdown_s", "recompute", b.recompute);
  visit("breakdown_s", "optimizer", b.optimizer);
  visit("breakdown_s", "tp_comm", b.tp_comm);
  visit("breakdown_s", "pp_comm", b.pp_comm);
  visit("breakdown_s", "dp_comm", b.dp_comm);
  visit("breakdown_s", "zero_comm", b.zero_comm);
  visit("breakdown_s", "ep_comm", b.ep_comm);
  visit("breakdown_s", "cp_comm", b.cp_comm);
  visit("breakdown_s", "offload", b.offload);
  visit("breakdown_s", "idle", b.idle);
  auto& c = r.comm_bytes_per_gpu;
  visit("comm_bytes_per_gpu", "tp", c.tp);
  visit("comm_bytes_per_gpu", "pp", c.pp);
  visit("comm_bytes_per_gpu", "dp", c.dp);
  visit("comm_bytes_per_gpu", "zero", c.zero);
  visit("comm_bytes_per_gpu", "ep", c.ep);
  visit("comm_bytes_per_gpu", "cp", c.cp);
  visit(nullptr, "peak_memory_bytes", r.peak_memory_bytes);
  visit(nullptr, "energy_per_step_j", r.energy_per_step_j);
  visit(nullptr, "energy_per_token_j", r.energy_per_token_j);
  visit(nullptr, "avg_power_w", r.avg_power_w);
  visit(nullptr, "dp_reductions_per_step", r.dp_reductions);
  visit(nullptr, "slow_gpus", r.slow_gpus);
  visit(nullptr, "straggler_wait_s", r.straggler_wait_s);
  visit(nullptr, "steps", r.steps);
}

/// A metric's name outside the JSON (trace attributes, sweep columns): the name itself, or
/// breakdown_<name>_s and comm_bytes_per_gpu_<name> in their groups.
inline std::string flat_step_field_name(const char* group, const char* name) {
  if (group == nullptr) return name;
  const std::string g = group;
  if (g == "breakdown_s") return "breakdown_" + std::string(name) + "_s";
  return g + "_" + name;
}

/// Every metric through checked_output (sim/core/checked_output.hpp) under its flat name, so
/// that an impossible one stops the command: called where a step's results are printed or
/// written (run's table and --json, sweep and batch rows, the trace's /summary).
inline void check_step_fields(const StepResult& r) {
  for_each_step_field(r, [](const char* group, const char* name, const auto& value) {
    checked_output(flat_step_field_name(group, name), static_cast<double>(value));
  });
}

}  // namespace trainsim
