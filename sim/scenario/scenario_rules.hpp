#pragma once
// Consistency rules across keys (a layout that does not divide the cluster, heads that do
// not divide over TP, ...). Each broken rule is an InputError naming the key to change.

#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// Throws InputError(file = scenario.source) on the first rule the scenario breaks.
void check_scenario_rules(const Scenario& scenario);

}  // namespace trainsim
