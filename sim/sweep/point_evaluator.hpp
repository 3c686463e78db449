#pragma once
// How a point is computed: a function from the point to its result. The CLI's evaluator
// simulates the step (step_point_evaluator.hpp); tests pass their own.

#include <functional>

#include "sim/sweep/point_result.hpp"
#include "sim/sweep/sweep_plan.hpp"

namespace trainsim::sweep {

/// Runs in a forked child (worker_pool.hpp). Returns the point's status, reason and
/// metrics; an InputError it throws makes the point skipped with the error's line as the
/// reason, any other exception makes it failed.
using PointEvaluator = std::function<PointResult(const SweepPoint&)>;

}  // namespace trainsim::sweep
