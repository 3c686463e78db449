#pragma once
// model.from: a Hugging Face config's rotary scaling as trainsim's model.rope_scaling (issue 57,
// GPT-OSS). trainsim prices the rotation's kernels, not its frequencies: what matters is whether
// Megatron-Core runs it as the fused RoPE kernel (plain `rope`) or unfused (`yarn`).

#include "models/model_spec.hpp"
#include "sim/scenario/hf_config_json.hpp"

namespace trainsim {

/// The config's `rope_parameters` (transformers v5's name) or `rope_scaling` (v4's, and the
/// released config.json files'), its `rope_type` (or the legacy `type`):
///   absent or null               -> `family_default` (yarn for GPT-OSS, whose class fills it in)
///   "default" (or no type)       -> none
///   "linear", "llama3"           -> none: Megatron-Core's RotaryEmbedding runs them as plain
///                                   RoPE (fused); their factors only change the frequencies
///   "yarn"                       -> yarn (Megatron-Core's YarnRotaryEmbedding, run unfused)
/// Any other type (dynamic, longrope, ...) is refused with one line naming the field: Megatron-Core's
/// GPTModel builds no such embedding.
RopeScaling hf_rope_scaling(const HfConfigJson& c, RopeScaling family_default);

}  // namespace trainsim
