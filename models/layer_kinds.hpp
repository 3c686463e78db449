#pragma once
// The kinds of transformer layer a model mixes: dense or MoE MLP (DeepSeek-V3's first dense
// layers), windowed or full attention (GPT-OSS's alternating layers). Everything that costs
// one layer (its ops, parameters, activations) takes the ModelSpec of that layer's kind.

#include <vector>

#include "models/model_spec.hpp"

namespace trainsim {

/// The shape of layer `layer` (0-based) of `model`: a dense layer of an MoE model has one
/// expert of ffn_hidden and no shared experts; a full-attention layer has no window.
ModelSpec layer_spec(const ModelSpec& model, int layer);

/// Whether two layers' specs (layer_spec's) are of one kind: both dense or both MoE, with the
/// same attention window.
bool same_layer_kind(const ModelSpec& a, const ModelSpec& b);

/// True when every layer of `model` has the same kind.
bool has_uniform_layers(const ModelSpec& model);

/// `count` consecutive layers of one kind.
struct LayerRun {
  ModelSpec layer;
  int first_layer = 0;
  int count = 0;
};

/// Layers [first_layer, first_layer + layers) of `model` as runs of consecutive layers of one
/// kind, in order.
std::vector<LayerRun> layer_runs(const ModelSpec& model, int first_layer, int layers);

/// Layers of one kind and how many of them, in order of first appearance.
struct LayerKindCount {
  ModelSpec layer;
  int count = 0;
};

/// `runs` merged by kind (the same kind's runs added up), in order of first appearance.
std::vector<LayerKindCount> count_kinds(const std::vector<LayerRun>& runs);

}  // namespace trainsim
