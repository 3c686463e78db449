#pragma once
// The shape of a decoder-only transformer, as a value type. Filled from a preset
// (models/model_presets.hpp) and explicit scenario keys; validated at the boundary.

#include <string>

namespace trainsim {

enum class FfnActivation { gelu, swiglu };
enum class NormKind { layernorm, rmsnorm };
enum class PositionEmbedding { learned, rope };

struct ModelSpec {
  std::string name = "custom";
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;    ///< key/value heads (GQA); equal to heads for multi-head attention
  int ffn_hidden = 0;  ///< per expert for mixture-of-experts models
  int vocab = 0;
  int seq_len = 0;
  int experts = 1;  ///< 1 = dense MLP
  int top_k = 1;    ///< experts each token is routed to
  /// Tokens an expert accepts, as a multiple of its balanced share (0: no cap, dropless).
  double capacity_factor = 0;
  /// Router imbalance: coefficient of variation of the experts' token counts (0: balanced).
  double expert_imbalance = 0;
  FfnActivation activation = FfnActivation::swiglu;
  NormKind norm = NormKind::rmsnorm;
  PositionEmbedding position = PositionEmbedding::rope;
  bool bias = false;             ///< linear layers and norms carry biases (GPT-2/3 style)
  bool tied_embeddings = false;  ///< output projection shares the input embedding
  bool dropout = false;          ///< dropout layers present (their masks are stored)

  int head_dim() const { return hidden / heads; }
  bool is_moe() const { return experts > 1; }
};

}  // namespace trainsim
