#pragma once
// The job at another data-parallel size: how many nodes it needs, and the scenario whose
// step the run simulates at that size (elastic shrink and grow, ElasticSpec).

#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// Nodes a job of `dp` replicas occupies: a replica spans tp*pp*cp GPUs.
int nodes_for_dp(const Scenario& s, int dp);

/// The most replicas, at most the scenario's dp and tiling whole expert groups, that fit on
/// `nodes`; 0 if not even elastic.min_dp do.
int largest_dp_on(const Scenario& s, int nodes);

/// `s` with `dp` replicas on nodes_for_dp(s, dp) nodes. With elastic.global_batch = keep the
/// micro-batches per replica change so that the global batch is as near the scenario's as
/// the schedule allows (ties: the larger); with scale they stay and the batch shrinks.
Scenario scenario_at_dp(const Scenario& s, int dp);

}  // namespace trainsim
