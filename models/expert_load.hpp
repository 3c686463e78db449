#pragma once
// How unevenly a router spreads tokens over experts, and what that costs the slowest rank.
// Real routers are not balanced (Fedus et al. 2021, Switch Transformer §2.2, add an
// auxiliary loss because of it); the expert-parallel group waits for its busiest rank at
// every all-to-all.

#include <cstdint>

#include "models/model_spec.hpp"
#include "models/parallel_spec.hpp"

namespace trainsim {

/// The busiest expert-parallel rank's tokens over the balanced share, averaged over the
/// model's layers: `model.router_load` when stated above 1 (at most the capacity factor, when
/// set); else 1 when `model.expert_imbalance` is 0. Expert loads are drawn per layer
/// from a log-normal with that coefficient of variation, seeded by `seed` (same seed, same
/// value); with `model.capacity_factor` > 0 an expert takes at most that multiple of its
/// balanced share (the excess tokens are dropped).
double busiest_expert_rank_load(const ModelSpec& model, const ParallelSpec& parallel, std::uint64_t seed);

}  // namespace trainsim
