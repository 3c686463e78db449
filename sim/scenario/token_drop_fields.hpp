#pragma once
// The token-dropping keys beside model.capacity_factor, as Megatron-Core names them
// (models/expert_capacity.hpp): model.pad_to_capacity (moe_pad_expert_input_to_capacity),
// model.token_drop_policy (moe_token_drop_policy: probs or position; recorded and checked,
// it does not change timing) and model.rank_capacity_factor (moe_expert_rank_capacity_factor),
// and the rules Megatron-Core holds them to.

#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_fields.hpp"

namespace trainsim {

/// The keys, in the order scenarios/README.md lists them (after model.capacity_factor).
std::vector<ScenarioField> token_drop_fields();

/// Megatron-Core's rules (NVIDIA/Megatron-LM @ d98e8a64, megatron/core/transformer/
/// transformer_config.py __post_init__): padding needs a capacity factor and is not offered by
/// the DeepEP backend; the rank capacity factor needs HybridEP; with the alltoall dispatcher a
/// capacity factor without padding copies counts to the host in the preprocess, which
/// moe_preprocess's graph cannot hold; and full-iteration CUDA graphs need static expert shapes
/// (Megatron-LM docs/user-guide/features/cuda_graph.md @ d98e8a64: dropless dispatch has
/// dynamic shapes and "cannot be captured"; the capture fails at the layer's device-to-host
/// sync rather than at the config). Each broken one throws an InputError.
void check_token_drop(const Scenario& s);

}  // namespace trainsim
