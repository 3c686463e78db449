#pragma once
// Forward FLOPs per token of the model's parts, used to balance pipeline stages.

#include "models/model_spec.hpp"

namespace trainsim {

/// One transformer layer: 2 FLOPs per active matrix parameter plus the attention scores
/// and their product with V, 2 s h each (Narayanan et al. SC21 eq. 3 counts 24 h^2 + 4 s h
/// per token for a GPT layer: 2 x 12 h^2 + 4 s h).
double layer_forward_flops_per_token(const ModelSpec& model);

/// The output layer (logits): 2 h V per token (the 2 h V term of eq. 3's V/(16 l h)).
double output_forward_flops_per_token(const ModelSpec& model);

}  // namespace trainsim
