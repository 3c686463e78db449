#pragma once
// The columns every results table (sweep, batch, plan: results.csv and results.h5) carries
// about each point besides its index, varied values, status, reason, summary metrics and
// trace: what a reader needs to act on its numbers. One list, so that CSV and HDF5 (and any
// column added later) cannot drift apart:
//   fits            "true" or "false": the step's peak memory is at most the GPU's
//                   (sim/step/memory_fit.hpp); empty where the point was not simulated
//   capacity_bytes  the GPU's memory
//   headroom_bytes  capacity less the peak; negative when it does not fit
// Numbers are NaN (an empty CSV cell) where the point was not simulated or its evaluator did
// not give the GPU's capacity.

#include <functional>
#include <string>
#include <vector>

#include "sim/sweep/point_result.hpp"

namespace trainsim::sweep {

struct ResultColumn {
  std::string name;
  /// Text columns (HDF5 variable-length strings) have `text`; number columns (float64) `number`.
  std::function<std::string(const PointResult&)> text;
  std::function<double(const PointResult&)> number;
};

/// The columns, in table order (after reason, before the metrics).
const std::vector<ResultColumn>& result_columns();

/// Whether the point was simulated with a known capacity and fits; false otherwise.
bool fits(const PointResult& r);

/// The GPU's memory less the point's peak; NaN where unknown.
double headroom_bytes(const PointResult& r);

}  // namespace trainsim::sweep
