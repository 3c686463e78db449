#pragma once
// Parameter counts of a decoder-only transformer, by part.

#include "models/model_spec.hpp"

namespace trainsim {

/// Parameters of one model, split the way they are placed on pipeline stages and
/// sharded by tensor / expert parallelism. All counts are numbers of parameters.
struct ParameterCounts {
  double attention_per_layer = 0;  ///< Q, K, V, output projection (+ biases)
  double mlp_per_layer = 0;        ///< all experts' MLPs (+ biases); dense: one MLP
  double router_per_layer = 0;     ///< MoE gate
  double norms_per_layer = 0;      ///< the two norms of a layer (replicated across TP)
  double embedding = 0;            ///< token embedding (vocab x hidden)
  double positions = 0;            ///< learned position embedding (seq_len x hidden)
  double output = 0;               ///< output projection (0 when tied to the embedding)
  double final_norm = 0;

  double per_layer() const { return attention_per_layer + mlp_per_layer + router_per_layer + norms_per_layer; }
  double total(int layers) const { return layers * per_layer() + embedding + positions + output + final_norm; }
};

/// For GPT-3 style models (MHA, GeLU MLP of 4h, biases, LayerNorm, tied embeddings,
/// learned positions) the total equals Narayanan et al. (SC21) eq. 2,
/// P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)), plus the final LayerNorm (2h)
/// that eq. 2 leaves out.
ParameterCounts count_parameters(const ModelSpec& model);

/// Parameters that take part in one token's forward pass through one layer's matrix
/// multiplies (MoE: the router and top_k experts), for FLOP counts: forward FLOPs are 2 per
/// parameter.
double active_matmul_parameters_per_layer(const ModelSpec& model);

}  // namespace trainsim
