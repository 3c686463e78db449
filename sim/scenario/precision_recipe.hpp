#pragma once
// The low-precision recipe keys beside training.precision, as Megatron-LM and Megatron-Bridge
// name them: training.attention_precision (fp8_dot_product_attention), training.fp8_scaling
// (--fp8-recipe tensorwise or delayed), training.fp8_param_gather (--fp8-param-gather:
// per-tensor fp8 under ZeRO 1 or 2 only) and training.first_last_layers_bf16 with
// num_layers_at_start_in_bf16 / num_layers_at_end_in_bf16;
// their fields (scenario_fields() lists them with the training keys) and their rules.

#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_fields.hpp"

namespace trainsim {

/// The recipe keys' fields, in the order scenarios/README.md documents them.
std::vector<ScenarioField> precision_recipe_fields();

/// Throws InputError naming the key for a recipe key its GPU, precision, attention kernel or
/// pipeline cannot run: fp8 attention on a GPU without fp8 tensor cores, in 16-bit training
/// (it runs inside Transformer Engine's fp8 autocast) or with unfused attention; bf16 layers
/// without a quantized precision, or more of them than a pipeline stage holds (Megatron-LM's
/// TransformerConfig rule). The table's fp8 attention rows are checked where the table is
/// read (sim/cli/scenario_compute_model.cpp).
void check_precision_recipe(const Scenario& scenario);

/// The values the GPU decides once the scenario is read: whether fp8 operands are cast once
/// for every GEMM (TrainingSpec::fp8_single_copy).
void derive_precision_recipe(Scenario& scenario);

}  // namespace trainsim
