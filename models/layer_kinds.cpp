#include "models/layer_kinds.hpp"

namespace trainsim {

namespace {

bool is_dense_layer(const ModelSpec& m, int layer) {
  return m.is_moe() &&
         (layer < m.dense_layers || (m.moe_layer_interval > 1 && (layer + 1) % m.moe_layer_interval != 0));
}

bool is_full_attention_layer(const ModelSpec& m, int layer) {
  return m.sliding_window == 0 || (m.full_attention_interval > 0 && (layer + 1) % m.full_attention_interval == 0);
}

// Layers of the same kind have the same spec; two flags tell the kinds apart.
bool same_kind(const ModelSpec& m, int a, int b) {
  return is_dense_layer(m, a) == is_dense_layer(m, b) && is_full_attention_layer(m, a) == is_full_attention_layer(m, b);
}

}  // namespace

ModelSpec layer_spec(const ModelSpec& m, int layer) {
  ModelSpec l = m;
  if (is_dense_layer(m, layer)) {
    l.experts = 1;
    l.top_k = 1;
    l.shared_experts = 0;
    l.moe_ffn_hidden = 0;
    l.capacity_factor = 0;
    l.pad_to_capacity = false;
    l.rank_capacity_factor = 0;
    l.expert_imbalance = 0;
    l.router_bias = false;
  }
  if (is_full_attention_layer(m, layer)) l.sliding_window = 0;
  l.dense_layers = 0;
  l.moe_layer_interval = 1;
  l.full_attention_interval = 0;
  l.mtp_depth = 0;
  return l;
}

bool same_layer_kind(const ModelSpec& a, const ModelSpec& b) {
  return a.is_moe() == b.is_moe() && a.sliding_window == b.sliding_window;
}

bool has_uniform_layers(const ModelSpec& m) {
  for (int i = 1; i < m.layers; ++i)
    if (!same_kind(m, 0, i)) return false;
  return true;
}

std::vector<LayerRun> layer_runs(const ModelSpec& m, int first_layer, int layers) {
  std::vector<LayerRun> runs;
  for (int i = first_layer; i < first_layer + layers; ++i) {
    if (!runs.empty() && same_kind(m, runs.back().first_layer, i)) {
      ++runs.back().count;
      continue;
    }
    runs.push_back({layer_spec(m, i), i, 1});
  }
  return runs;
}

std::vector<LayerKindCount> count_kinds(const std::vector<LayerRun>& runs) {
  std::vector<LayerKindCount> kinds;
  for (const LayerRun& r : runs) {
    bool merged = false;
    for (LayerKindCount& k : kinds)
      if (k.layer.is_moe() == r.layer.is_moe() && k.layer.sliding_window == r.layer.sliding_window) {
        k.count += r.count;
        merged = true;
        break;
      }
    if (!merged) kinds.push_back({r.layer, r.count});
  }
  return kinds;
}

}  // namespace trainsim
