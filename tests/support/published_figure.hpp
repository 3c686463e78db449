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
};

/// The figure of `file`: tflops_per_gpu (Megatron-LM's eq. 3 FLOPs, against
/// hardware_tflops_per_gpu_full_attention), tokens_per_s_per_gpu or model_tflops_per_gpu;
/// std::nullopt when it names none.
std::optional<PublishedFigure> published_figure(const std::string& file);

/// Every scenarios/validation/*.ini with a published figure, in name order, with its figure:
/// the published runs the validation tests simulate.
std::vector<std::pair<std::string, PublishedFigure>> published_validation_runs();

}  // namespace trainsim::testing
