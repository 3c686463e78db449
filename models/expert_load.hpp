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

/// model.router_balance = aux_loss: a router trained with an auxiliary balance loss, dropless
/// (Megatron-Core without moe_router_force_load_balancing). The one same-stack measurement of
/// what that costs over forced balance is Megatron-MoE-ModelZoo's (yanring/Megatron-MoE-ModelZoo
/// best_practice/qwen3/readme.md @ e8650517, "Long Context"; public.md D5): Qwen3-235B-A22B on
/// 256 H100, DeepEP, BF16, TP 4, PP 8 (VPP 4), EP 8 inside a node, 4,096 tokens per rank at
/// sequence 16K, 32K, 64K, 128K (CP 1, 2, 4, 8), model TFLOP/s per GPU with forced balance /
/// dropless: 295 / 237, 335 / 277, 368 / 320, 389 / 357, i.e. 24.5, 20.9, 15.0 and 9.0 % more
/// step time (19.7 to 8.2 % less throughput; public.md's "8-20 %"). The cost falls with the
/// sequence mostly because attention, which the loads do not touch, grows in the step.
///
/// How that figure becomes a load per EP size: real routers leave each expert a token count
/// that varies from layer to layer and micro-batch to micro-batch; trainsim draws each
/// expert's load from a log-normal of coefficient of variation k_aux_loss_expert_cv (mean 1,
/// the drawn path below), a rank's load is its E / ep experts' mean and the group waits for
/// its busiest rank, averaged over k_aux_loss_draws draws of a fixed seed (a property of the
/// router, not of the run's seed). Fewer experts per rank average less, so the busiest rank's
/// load grows with EP. The CV is the one value at which this build's step model gives the four
/// ModelZoo ratios (tests/cli/moe_routing_test.cpp runs them): their rows are 16 experts
/// per rank at EP 8 on 128 experts, where the busiest rank carries about 1.48 x its balanced
/// share; see models/README.md, "Router balance", for the load it gives at other EP sizes.
/// It is an effective spread: it also carries what else real routing costs that forced
/// routing does not (DeepEP's bandwidth under intra-node skew, DeepEP#343; uneven grouped
/// GEMMs, TransformerEngine#1386), as the measurement does. Far from 16 experts a rank it is
/// an extrapolation no measurement checks: one expert a rank (128 experts at EP 128) puts the
/// busiest rank at about 8 x its share.
inline constexpr double k_aux_loss_expert_cv = 1.2;
inline constexpr int k_aux_loss_draws = 512;
inline constexpr std::uint64_t k_aux_loss_seed = 57;

/// The loads: `model.router_aux_loss` (above); `model.router_load` when stated above 1 (the busiest rank's, at most the
/// caps; the other ranks share the rest of the tokens evenly); else, with `model.expert_imbalance` > 0, expert loads
/// drawn per layer from a log-normal with that coefficient of variation, seeded by `seed` (same seed, same value); else
/// every expert at its balanced share. Caps: `model.capacity_factor` > 0 holds each expert to that multiple of its
/// balanced share, `model.rank_capacity_factor` > 0 each rank (Megatron-Core's moe_expert_capacity_factor and
/// moe_expert_rank_capacity_factor); the tokens above them are dropped.
ExpertLoads expert_loads(const ModelSpec& model, const ParallelSpec& parallel, std::uint64_t seed);

/// expert_loads(...).busiest_rank: the busiest expert-parallel rank's tokens over the
/// balanced share (1 for a dense model).
double busiest_expert_rank_load(const ModelSpec& model, const ParallelSpec& parallel, std::uint64_t seed);

}  // namespace trainsim
