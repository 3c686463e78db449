#include "sim/sweep/step_summary.hpp"

#include <limits>

#include "sim/core/units.hpp"
#include "sim/step/memory_fit.hpp"
#include "sim/step/step_fields.hpp"

namespace trainsim::sweep {

const std::vector<std::string>& summary_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    StepResult step;
    for_each_step_field(
        step, [&n](const char* group, const char* name, auto&) { n.push_back(flat_step_field_name(group, name)); });
    RunResult run;
    for_each_run_field(run, [&n](const char* name, auto&) { n.push_back(std::string(k_run_metric_prefix) + name); });
    for (const char* name : k_neighbour_metric_names) n.emplace_back(name);
    return n;
  }();
  return names;
}

std::vector<double> summary_metrics(const StepResult& r, const std::optional<RunResult>& run) {
  check_step_fields(r);
  if (run) check_run_fields(*run);
  std::vector<double> values;
  for_each_step_field(
      r, [&values](const char*, const char*, const auto& value) { values.push_back(static_cast<double>(value)); });
  const RunResult none;
  for_each_run_field(run ? *run : none, [&](const char*, const auto& value) {
    values.push_back(run ? static_cast<double>(value) : std::numeric_limits<double>::quiet_NaN());
  });
  const double none_here = std::numeric_limits<double>::quiet_NaN();
  values.push_back(r.neighbour ? r.neighbour->step_time_s : none_here);
  values.push_back(r.neighbour ? r.neighbour->tokens_per_s_per_gpu : none_here);
  return values;
}

PointResult simulated_point(const StepResult& r, const std::optional<RunResult>& run, double capacity_bytes) {
  PointResult p;
  p.metrics = summary_metrics(r, run);
  p.capacity_bytes = capacity_bytes;
  p.status = PointStatus::ok;
  if (!memory_fit(r.peak_memory_bytes, capacity_bytes).fits) {
    p.status = PointStatus::does_not_fit;
    p.reason = "peak memory " + units::format_bytes_binary(r.peak_memory_bytes) + " per GPU exceeds the GPU's " +
               units::format_bytes_binary(capacity_bytes);
  }
  return p;
}

double metric_value(const PointResult& r, const std::string& name) {
  const auto& names = summary_metric_names();
  for (size_t i = 0; i < names.size() && i < r.metrics.size(); ++i)
    if (names[i] == name) return r.metrics[i];
  return 0;
}

}  // namespace trainsim::sweep
