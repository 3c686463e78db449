#pragma once
// model.from: a model's shape read from its Hugging Face config.json (issue 58 item 2), for the
// families the presets cover: Llama, Qwen2, Qwen3, Qwen3-MoE, Mixtral, DeepSeek-V3, GPT-OSS and
// Nemotron. Field names and defaults are those of transformers' configuration_*.py (cited in
// the .cpp); the sequence length is not read (max_position_embeddings is the longest context
// the model accepts, not what it trains on): the scenario gives model.seq_len.

#include <string>

#include "models/model_spec.hpp"
#include "sim/scenario/scenario_fields.hpp"

namespace trainsim {

/// The architectures[0] values model.from reads, in the order the README lists them.
const std::vector<std::string>& hf_architectures();

/// The model `path` describes, seq_len left 0. Throws InputError naming `path` and the JSON
/// field on a field it lacks or cannot be represented, and on an unknown architecture.
ModelSpec model_from_hf_config(const std::string& path);

/// The scenario key model.from (a preset-like key: applied before the model's own keys, which
/// override what it filled in). Its path is relative to the scenario file's folder.
ScenarioField model_from_field();

}  // namespace trainsim
