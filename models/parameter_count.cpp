#include "models/parameter_count.hpp"

namespace trainsim {

namespace {

double mlp_parameters(const ModelSpec& m) {
  const double h = m.hidden;
  const double f = m.ffn_hidden;
  // GeLU MLP: h->f and f->h. SwiGLU (Shazeer 2020): gate and up h->f, down f->h.
  const double matrices = m.activation == FfnActivation::swiglu ? 3.0 * h * f : 2.0 * h * f;
  const double biases = !m.bias ? 0.0 : (m.activation == FfnActivation::swiglu ? 2.0 * f : f) + h;
  return matrices + biases;
}

double attention_parameters(const ModelSpec& m) {
  const double h = m.hidden;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
  // Q and output projection are h x h; K and V are h x (kv_heads * head_dim) (GQA).
  const double matrices = 2.0 * h * h + 2.0 * h * kv;
  const double biases = m.bias ? (h + 2.0 * kv) + h : 0.0;
  return matrices + biases;
}

double norm_parameters(const ModelSpec& m) {
  // LayerNorm has a scale and a shift; RMSNorm only a scale.
  return m.norm == NormKind::layernorm ? 2.0 * m.hidden : 1.0 * m.hidden;
}

}  // namespace

ParameterCounts count_parameters(const ModelSpec& m) {
  ParameterCounts c;
  c.attention_per_layer = attention_parameters(m);
  c.mlp_per_layer = m.experts * mlp_parameters(m);
  c.router_per_layer = m.is_moe() ? static_cast<double>(m.hidden) * m.experts : 0.0;
  c.norms_per_layer = 2.0 * norm_parameters(m);
  c.embedding = static_cast<double>(m.vocab) * m.hidden;
  c.positions = m.position == PositionEmbedding::learned ? static_cast<double>(m.seq_len) * m.hidden : 0.0;
  c.output = m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * m.hidden;
  c.final_norm = norm_parameters(m);
  return c;
}

double active_matmul_parameters_per_layer(const ModelSpec& m) {
  const double h = m.hidden;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
  const double f = m.ffn_hidden;
  const double mlp = m.activation == FfnActivation::swiglu ? 3.0 * h * f : 2.0 * h * f;
  const double router = m.is_moe() ? h * m.experts : 0.0;  // every token is scored against every expert
  return 2.0 * h * h + 2.0 * h * kv + router + m.top_k * mlp;
}

}  // namespace trainsim
