#pragma once
// The drill: the uninterrupted run, then recoveries at the interruption steps (full
// checkpoint, and each item of `omit` left out), then the scaling semantics at another
// data-parallel size: the same global batch (curves differ only by reduction order), a global
// batch grown with the ranks (the common mistake), and a restore resharded to that size.

#include <vector>

#include "sim/drill/drill_result.hpp"
#include "sim/drill/drill_spec.hpp"

namespace trainsim::drill {

struct DrillOptions {
  std::vector<long long> fail_at;    ///< interruption steps (1-based); empty: one at 7/10 of the run
  std::vector<CheckpointItem> omit;  ///< a recovery without each of these
  int other_dp = 0;                  ///< the scaling comparisons' size; 0: chosen (scaling_layout)
  int scenario_dp = 1;               ///< reported only
  int dp_cap = 8;                    ///< reported, and bounds the chosen other size
  bool scaling = true;               ///< run the scaling comparisons
};

/// The default interruption step of a drill of `steps` steps.
long long default_fail_step(long long steps);

/// Another data-parallel size with the same global batch: twice the ranks (half the
/// accumulation) when the batch divides and it stays within `cap`, else half; nullopt when
/// neither divides.
std::optional<Layout> same_batch_layout(const Layout& layout, int cap);

/// Compares `run` with the uninterrupted `reference`.
RunComparison compare(const TrainedRun& reference, const TrainedRun& run);

DrillResult run_drill(const DrillSpec& spec, const DrillOptions& options);

}  // namespace trainsim::drill
