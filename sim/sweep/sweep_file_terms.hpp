#pragma once
// A point's bad value as the sweep file gives it. The loader sees a point's [vary] and [set]
// values as overrides and names them `--set` (sim/scenario/scenario_loader.cpp), which a sweep
// has none of: a skipped point read `--set: parallel.tp = '16': ...`, naming neither the sweep
// file nor its base scenario.

#include <string>

#include "sim/core/error.hpp"
#include "sim/sweep/point_evaluator.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace trainsim::sweep {

/// `key` as the sweep file names it: set.KEY or vary.KEY when it is one of its keys, else `key`.
std::string sweep_key(const SweepSpec& spec, const std::string& key);

/// `e` when it is not a `--set`'s; else InputError(sweep file, vary.KEY or set.KEY, value,
/// rule), the rule naming the base scenario ("(base scenario PATH)" when it does not already).
InputError in_sweep_file_terms(const SweepSpec& spec, const InputError& e);

/// `evaluate`, whose skipped points' reasons are in_sweep_file_terms: its InputError (computed
/// in process) or its reason line (a `trainsim run --set` child's, traced_point_evaluator.hpp).
PointEvaluator naming_sweep_file_keys(const SweepSpec& spec, PointEvaluator evaluate);

}  // namespace trainsim::sweep
