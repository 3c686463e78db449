#include "sim/scenario/hf_rope_scaling.hpp"

// Sources:
// - transformers (github.com/huggingface/transformers): the field is `rope_scaling` in
//   models/gpt_oss/configuration_gpt_oss.py @ 828a27fd326e49d4a1c4b08210bfd32c107facc9 (default
//   {"rope_type": "yarn", "factor": 32.0, ...}; a legacy "type" is copied to "rope_type") and
//   `rope_parameters` @ 02b8f42b4240dddea1b27c45d2dc95fb2682f841 (None filled in with the same
//   yarn parameters); the released openai/gpt-oss-120b config.json writes `rope_scaling` with
//   "rope_type": "yarn", DeepSeek-V3's with the legacy "type": "yarn", Llama 3.1's "llama3".
// - Megatron-LM @ 92c8482e6dcd11c3666c61bb8d1f7e8d0730ed13: GPTModel
//   (megatron/core/models/gpt/gpt_model.py) builds RotaryEmbedding for position_embedding_type
//   "rope", with seq_len_interpolation_factor (linear: positions divided) and rope_scaling
//   (Llama 3.x: inv_freq rescaled by _apply_scaling), YarnRotaryEmbedding for "yarn", and
//   MultimodalRotaryEmbedding for "mrope"; nothing else. Megatron-Bridge @ 00b7660b keeps
//   apply_rope_fusion for "rope" only (src/megatron/bridge/utils/fusions.py,
//   validate_rope_fusion_compatibility): see models/eager_passes.hpp.

namespace trainsim {

RopeScaling hf_rope_scaling(const HfConfigJson& c, RopeScaling family_default) {
  const char* field = c.has("rope_parameters") ? "rope_parameters" : "rope_scaling";
  if (!c.has_object(field)) return family_default;
  // transformers' rope_config_validation: rope_type, else the legacy type, else "default".
  const bool legacy = c.member_text(field, {"rope_type"}).empty();
  const std::string type = c.member_text(field, {"rope_type", "type"});
  if (type.empty() || type == "default" || type == "linear" || type == "llama3") return RopeScaling::none;
  if (type == "yarn") return RopeScaling::yarn;
  c.refuse(std::string(field) + (legacy ? ".type" : ".rope_type"), type,
           "trainsim reads default, linear and llama3 (plain RoPE) and yarn: Megatron-Core builds no other rotary "
           "embedding for a GPT model");
}

}  // namespace trainsim
