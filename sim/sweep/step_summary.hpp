#pragma once
// The summary metrics of one simulated step, as the columns of a sweep's results: the
// deterministic fields of `trainsim run --json` (sim/step/step_fields.hpp; sim_wall_s, the
// wall-clock time, is left out so that results are identical run to run), breakdown_s and
// comm_bytes_per_gpu flattened as breakdown_<name>_s and comm_bytes_per_gpu_<name>, then the run-level simulation's
// fields as run_<name> (NaN, an empty cell, when the point has no `[run] duration`), then
// the neighbour job's step beside it as neighbour_<name> (NaN without variations.neighbour).

#include <string>
#include <vector>

#include <optional>

#include "sim/run/run_result.hpp"
#include "sim/step/step_result.hpp"
#include "sim/sweep/point_result.hpp"

namespace trainsim::sweep {

/// Column names, in order; units are in the names (_s, _bytes, _j, _w) or the metric is a
/// count or a fraction (0..1).
const std::vector<std::string>& summary_metric_names();

/// The values of `r` and `run` in the order of summary_metric_names().
std::vector<double> summary_metrics(const StepResult& r, const std::optional<RunResult>& run);

/// A simulated point: the metrics of `r` and `run`, the GPU's `capacity_bytes`, and its status:
/// ok, or does_not_fit (sim/step/memory_fit.hpp) with the reason in one line.
PointResult simulated_point(const StepResult& r, const std::optional<RunResult>& run, double capacity_bytes);

/// The metric `name` (one of summary_metric_names()) of a simulated point; 0 when absent.
double metric_value(const PointResult& r, const std::string& name);

/// The prefix of the run-level columns.
inline constexpr const char* k_run_metric_prefix = "run_";

/// The neighbour job's columns, after the run-level ones, in order.
inline constexpr const char* k_neighbour_metric_names[] = {"neighbour_step_time_s", "neighbour_tokens_per_s_per_gpu"};

}  // namespace trainsim::sweep
