#pragma once
// Consistency rules across keys (a layout that does not divide the cluster, heads that do
// not divide over TP, ...). Each broken rule is an InputError naming the key to change.

#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// The largest cluster trainsim builds: 2^20 GPUs, and as many NICs.
inline constexpr long long k_max_cluster_endpoints = 1LL << 20;

/// The most micro-batches one simulation plays per pipeline stage, run.steps x
/// training.grad_accum: 32 times the most of any published configuration shipped (Megatron-LM's
/// 1T model: 512, scenarios/validation/megatron-1008b.ini). The simulation's time and memory
/// grow with them (issue 19: grad_accum = 100000000 took 10 GB in 60 s, then aborted); the
/// default scenario at this many takes under a minute here.
inline constexpr int k_max_simulated_microbatches = 16384;
inline constexpr const char* k_simulated_microbatches_why =
    "at most 16384 micro-batches are simulated (run.steps x training.grad_accum; time and memory grow with them, "
    "and steps repeat the first, so fewer steps give the same per-step results)";

/// Throws InputError when the cluster has more GPUs or NICs than k_max_cluster_endpoints
/// (checked before anything multiplies the counts in int).
void check_cluster_size(const Scenario& scenario);

/// Throws InputError(file = scenario.source) on the first rule the scenario breaks.
void check_scenario_rules(const Scenario& scenario);

}  // namespace trainsim
