#pragma once
// Parameter counts of a decoder-only transformer, by part.

#include "models/model_spec.hpp"

namespace trainsim {

/// Parameters of one model, split the way they are placed on pipeline stages and
/// sharded by tensor / expert parallelism. All counts are numbers of parameters. The
/// per-layer counts are those of the ModelSpec given: for a model mixing layer kinds, pass
/// layer_spec(model, i) (models/layer_kinds.hpp), or use total_parameters().
struct ParameterCounts {
  double attention_per_layer = 0;  ///< Q, K, V, output projection (+ biases, sinks): split over TP
  /// Attention parameters every TP rank holds whole: MLA's down-projections and their norms,
  /// Qwen3's per-head query and key norms.
  double attention_replicated_per_layer = 0;
  double mlp_per_layer = 0;         ///< all routed experts' MLPs (+ biases); dense: one MLP
  double shared_mlp_per_layer = 0;  ///< shared experts (DeepSeekMoE): dense, split over TP only
  double router_per_layer = 0;      ///< MoE gate (+ its bias)
  double norms_per_layer = 0;       ///< the layer's norms (replicated across TP)
  double embedding = 0;             ///< token embedding (vocab x hidden)
  double positions = 0;             ///< learned position embedding (seq_len x hidden)
  double output = 0;                ///< output projection (0 when tied to the embedding)
  double final_norm = 0;
  /// Multi-token prediction: per module, its projection (2h x h) and two norms, and the
  /// shared head's norm, without its transformer layer (count that as a layer).
  double mtp_extra_per_module = 0;

  double per_layer() const {
    return attention_per_layer + attention_replicated_per_layer + mlp_per_layer + shared_mlp_per_layer +
           router_per_layer + norms_per_layer;
  }
  /// A model of `layers` layers of this kind, without multi-token prediction modules.
  double total(int layers) const { return layers * per_layer() + embedding + positions + output + final_norm; }
};

/// For GPT-3 style models (MHA, GeLU MLP of 4h, biases, LayerNorm, tied embeddings,
/// learned positions) the total equals Narayanan et al. (SC21) eq. 2,
/// P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)), plus the final LayerNorm (2h)
/// that eq. 2 leaves out.
ParameterCounts count_parameters(const ModelSpec& model);

/// Every parameter of the model: its layers kind by kind and, with model.mtp_depth, the
/// multi-token prediction modules (their own layer and projection; the embedding and the
/// output layer they share are counted once).
double total_parameters(const ModelSpec& model);

/// Parameters that take part in one token's forward pass through one layer's matrix
/// multiplies (MoE: the router, top_k routed and the shared experts), for FLOP counts:
/// forward FLOPs are 2 per parameter.
double active_matmul_parameters_per_layer(const ModelSpec& model);

}  // namespace trainsim
