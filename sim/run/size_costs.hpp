#pragma once
// What the run simulation needs to know of the job at one data-parallel size, simulated
// beforehand (the step on the fabric, the checkpoint through the storage model): the run
// replays these, it does not re-derive them.

#include <map>

#include "sim/run/checkpoint_storage.hpp"

namespace trainsim {

struct SizeCosts {
  double step_time_s = 0;
  double samples_per_step = 0;  ///< the global batch at this size
  CheckpointCosts checkpoint;
  /// With one more slow GPU (a straggler: variations.straggler_mtbf); 0 without stragglers.
  double straggler_step_time_s = 0;
};

/// By data-parallel size.
using SizeCostTable = std::map<int, SizeCosts>;

}  // namespace trainsim
