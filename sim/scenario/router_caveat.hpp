#pragma once
// The caveat a run with model.router_balance = aux_loss carries where its load model is an
// extrapolation (issue 57 item 7): the spread of models/expert_load.hpp reproduces the one
// same-stack measurement there is, Megatron-MoE-ModelZoo's Qwen3-235B-A22B at 16 experts per
// expert-parallel rank (public.md D5); at any other count of experts per rank nothing measured
// checks the busiest rank's load it gives.

#include <optional>
#include <string>

#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// The experts per rank of the measurement the aux_loss spread reproduces.
inline constexpr int k_aux_loss_measured_experts_per_rank = 16;

/// One line naming the experts per rank and the busiest rank's load the model gives, when the
/// scenario routes with aux_loss at another count of experts per rank; nothing otherwise.
std::optional<std::string> router_balance_caveat(const Scenario& s);

}  // namespace trainsim
