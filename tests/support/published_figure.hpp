#pragma once
// The published figure a validation scenario names in a line "# published_<metric> = N"
// (scenarios/validation/README.md; table.py reads the same lines), and the `trainsim run
// --json` field it is compared with.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trainsim::testing {

struct PublishedFigure {
  std::string field;  ///< the --json field the figure compares with
  double value = 0;
  bool time = false;  ///< a time (step_time_s): lower is faster

  /// The throughput error of `simulated` (the --json field's value) against the figure, as a
  /// fraction: positive when the simulation runs faster than published, for a rate and for a
  /// time alike (a time's is published / simulated - 1), so every row reads the same way.
  double error(double simulated) const { return time ? value / simulated - 1 : simulated / value - 1; }
};

/// The figure of `file`: tflops_per_gpu (Megatron-LM's eq. 3 FLOPs, against
/// hardware_tflops_per_gpu_full_attention), tokens_per_s_per_gpu, model_tflops_per_gpu or
/// step_time_s (MLPerf's logged step time, public.md A4); std::nullopt when it names none.
std::optional<PublishedFigure> published_figure(const std::string& file);

/// Whether `file` is one of MLPerf Training's logged runs (public.md A4: scenarios/validation/
/// mlperf-*.ini), which tests/cli/mlperf_validation_test.cpp holds to bounds of their own.
bool is_mlperf_run(const std::string& file);

/// Every scenarios/validation/*.ini with a published figure, in name order, with its figure:
/// the published runs the validation tests simulate.
std::vector<std::pair<std::string, PublishedFigure>> published_validation_runs();

}  // namespace trainsim::testing
