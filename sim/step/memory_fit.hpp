#pragma once
// Whether a simulated step's peak memory fits its GPU: the one rule behind `run --json`'s
// fits, capacity_bytes and headroom_bytes, its warning line, and the fit columns and
// does_not_fit status of sweep, batch and plan tables (issue 55), so that they never disagree.

#include <optional>
#include <string>

#include "sim/scenario/scenario.hpp"
#include "sim/step/step_result.hpp"

namespace trainsim {

struct MemoryFit {
  bool fits = true;
  double capacity_bytes = 0;  ///< the GPU's memory
  double headroom_bytes = 0;  ///< capacity less the busiest GPU's peak; negative when it does not fit
};

/// The fit of `peak_memory_bytes` on a GPU of `capacity_bytes`: it fits when the peak is at
/// most the capacity.
MemoryFit memory_fit(double peak_memory_bytes, double capacity_bytes);

/// The fit of `r`'s peak on `s`'s GPU.
MemoryFit memory_fit(const Scenario& s, const StepResult& r);

/// Why `r` does not fit on `s`'s GPU, in one sentence with what helps, or nothing when it fits.
std::optional<std::string> memory_fit_warning(const Scenario& s, const StepResult& r);

}  // namespace trainsim
