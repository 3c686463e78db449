#pragma once
// A sweep's results as one table, one row per point in the sweep's order: the point index,
// the varied values (text, as passed), status, reason, the columns of result_columns.hpp (fits,
// capacity_bytes, headroom_bytes), every summary metric, the trace path, the validation family
// and the accuracy caveat (sim/scenario/accuracy_caveats.hpp).
// Rows of points not yet computed have status "pending" and empty (CSV) or NaN (HDF5) metrics.

#include <string>
#include <vector>

#include "sim/sweep/point_result.hpp"
#include "sim/sweep/sweep_plan.hpp"

namespace trainsim::sweep {

/// `results[i]` is the result of plan.points[i] (pending if not computed).
/// The CSV text (RFC 4180 quoting; numbers in shortest round-trip form).
std::string results_csv(const SweepPlan& plan, const std::vector<PointResult>& results);

/// Writes the same table to the HDF5 file `path` (see results_h5.cpp for the layout),
/// under a temporary name, then renames it. Throws trainsim::Error if HDF5 fails.
void write_results_h5(const std::string& path, const SweepPlan& plan, const std::vector<PointResult>& results);

}  // namespace trainsim::sweep
