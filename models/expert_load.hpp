#pragma once
// How unevenly a router spreads tokens over experts, and what that costs the slowest rank.
// Real routers are not balanced (Fedus et al. 2021, Switch Transformer §2.2, add an
// auxiliary loss because of it); the expert-parallel group waits for its busiest rank at
// every all-to-all.

#include <cstdint>

#include "models/model_spec.hpp"
#include "models/parallel_spec.hpp"

namespace trainsim {

/// What the router leaves each expert-parallel rank, averaged over the model's MoE layers.
struct ExpertLoads {
  /// The busiest rank's routed tokens that survive the caps, over the balanced share.
  double busiest_rank = 1.0;
  /// Of all (token, expert) pairs the router picks, the share no cap drops: what the experts'
  /// model FLOPs count.
  double kept = 1.0;
};

/// The loads: `model.router_load` when stated above 1 (the busiest rank's, at most the caps;
/// the other ranks share the rest of the tokens evenly); else, with `model.expert_imbalance` > 0, expert loads drawn per layer
/// from a log-normal with that coefficient of variation, seeded by `seed` (same seed, same
/// value); else every expert at its balanced share. Caps: `model.capacity_factor` > 0 holds
/// each expert to that multiple of its balanced share, `model.rank_capacity_factor` > 0 each
/// rank (Megatron-Core's moe_expert_capacity_factor and moe_expert_rank_capacity_factor);
/// the tokens above them are dropped.
ExpertLoads expert_loads(const ModelSpec& model, const ParallelSpec& parallel, std::uint64_t seed);

/// expert_loads(...).busiest_rank: the busiest expert-parallel rank's tokens over the
/// balanced share (1 for a dense model).
double busiest_expert_rank_load(const ModelSpec& model, const ParallelSpec& parallel, std::uint64_t seed);

}  // namespace trainsim
