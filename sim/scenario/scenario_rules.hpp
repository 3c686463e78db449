#pragma once
// Consistency rules across keys (a layout that does not divide the cluster, heads that do
// not divide over TP, ...). Each broken rule is an InputError naming the key to change.

#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// The largest cluster trainsim builds: 2^20 GPUs, and as many NICs.
inline constexpr long long k_max_cluster_endpoints = 1LL << 20;

/// Throws InputError when the cluster has more GPUs or NICs than k_max_cluster_endpoints
/// (checked before anything multiplies the counts in int).
void check_cluster_size(const Scenario& scenario);

/// Throws InputError(file = scenario.source) on the first rule the scenario breaks.
void check_scenario_rules(const Scenario& scenario);

}  // namespace trainsim
