#pragma once
// Before a sweep computes anything: a sweep none of whose points is a valid scenario is a
// mistake in the sweep file (a [set] value that breaks a rule with every varied value, say),
// not a run of skipped points that ends with exit 0.

#include "sim/sweep/sweep_plan.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace trainsim::sweep {

/// Loads the points of `plan` (from `spec`) until one is a valid scenario. Throws
/// InputError(sweep file, key, value, rule) with the first point's broken rule when none is;
/// the key is written as the sweep file has it (set.KEY, vary.KEY) when it is one of its keys.
void require_a_valid_point(const SweepSpec& spec, const SweepPlan& plan);

}  // namespace trainsim::sweep
