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

/// The most transformer layers a model may have: 32 times the deepest shipped configuration
/// (Megatron-LM's 1T model, 128 layers). Every per-layer loop (op lists, memory budget,
/// pipeline partition, chunk schedule, expert loads) is bounded by it: 4,096 layers of the
/// default scenario simulate in a fraction of a second; 100,000 took 55 s and 0.5 GB.
inline constexpr int k_max_layers = 4096;
inline constexpr const char* k_max_layers_why =
    "at most 4096 layers, 32 times the deepest published model shipped (Megatron-LM 1T: 128); every per-layer "
    "loop is bounded by it";
/// The most routed experts per MoE layer: 64 times DeepSeek-V3's 256 (the most of the shipped
/// presets; Switch-C, the largest published count, has 2,048). Expert loads are drawn per layer
/// and expert, so this times k_max_layers bounds that loop (about 3 s here at both limits).
inline constexpr int k_max_experts = 16384;
inline constexpr const char* k_max_experts_why =
    "at most 16384 experts, 64 times DeepSeek-V3's 256; expert loads are drawn per layer and expert";
/// The most multi-token prediction modules (each one more layer on the last stage): 64 times
/// DeepSeek-V3's one; 1,000,000 took 10 s and 1.8 GB.
inline constexpr int k_max_mtp_depth = 64;
inline constexpr const char* k_max_mtp_depth_why =
    "at most 64 modules, 64 times DeepSeek-V3's one; each is one more layer simulated";

/// Throws InputError when the cluster has more GPUs or NICs than k_max_cluster_endpoints
/// (checked before anything multiplies the counts in int).
void check_cluster_size(const Scenario& scenario);

/// Throws InputError on the first rule that `scenario` and its loaded neighbour
/// (variations.neighbour) break together: the neighbour runs on nodes of the same cluster.
void check_neighbour(const Scenario& scenario);

/// Throws InputError(file = scenario.source) on the first rule the scenario breaks.
void check_scenario_rules(const Scenario& scenario);

}  // namespace trainsim
