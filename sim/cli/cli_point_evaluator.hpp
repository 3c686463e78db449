#pragma once
// How batch and sweep evaluate a point from the command line.

#include <string>

#include "sim/sweep/point_evaluator.hpp"

namespace trainsim::cli {

/// In-process simulation, or with `trace` a `trainsim run --trace` in each point's process
/// (this executable), its traces under `out_dir`. Throws Error if the executable cannot be
/// found.
sweep::PointEvaluator cli_point_evaluator(bool trace, const std::string& out_dir);

}  // namespace trainsim::cli
