#pragma once
// The router's keys beside model.router_balance, as Megatron-Core names them: group-limited
// routing, model.router_num_groups and model.router_group_topk (moe_router_num_groups,
// moe_router_group_topk; DeepSeek-V3's node-limited routing: models/moe_dispatch.hpp), and the
// rules they and model.router_balance are held to.

#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_fields.hpp"

namespace trainsim {

/// model.router_num_groups and model.router_group_topk, in the order scenarios/README.md lists
/// them (after model.router_balance).
std::vector<ScenarioField> router_group_fields();

/// The groups split the experts evenly (Megatron-Core's group_limited_topk views the scores as
/// groups x experts per group), a token picks at most all the groups and finds its top_k
/// experts inside the ones it picks, the two keys come together and on an MoE model; aux_loss
/// and a stated load factor exclude model.expert_imbalance (one source of loads). Each broken
/// one throws an InputError naming the key, its value and the rule.
void check_router(const Scenario& s);

}  // namespace trainsim
