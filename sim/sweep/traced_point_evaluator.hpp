#pragma once
// The evaluator of `trainsim sweep --trace` and `trainsim batch --trace`: the point's process
// runs `trainsim run SCENARIO --set ... --json --trace DIR/traces/NNNNNN.h5` (the run
// command's own trace writer, sim/trace/) and reads the summary metrics from its JSON.
// Exit code 2 (bad input) makes the point skipped with trainsim's one-line message.

#include <string>

#include "sim/sweep/point_evaluator.hpp"

namespace trainsim::sweep {

/// `trainsim_exe`: absolute path of the trainsim executable; `out_dir`: the sweep's output
/// folder (traces go to out_dir/traces/, and PointResult::trace is relative to out_dir).
PointEvaluator traced_point_evaluator(std::string trainsim_exe, std::string out_dir);

}  // namespace trainsim::sweep
