#include "models/parameter_count.hpp"

#include "models/layer_kinds.hpp"

namespace trainsim {

namespace {

double mlp_matrices(const ModelSpec& m, double f) {
  const double h = m.hidden;
  // GeLU and squared ReLU: h->f and f->h. SwiGLU (Shazeer 2020): gate and up h->f, down f->h.
  return m.activation == FfnActivation::swiglu ? 3.0 * h * f : 2.0 * h * f;
}

double mlp_parameters(const ModelSpec& m, double f) {
  const double h = m.hidden;
  const double biases = !m.bias ? 0.0 : (m.activation == FfnActivation::swiglu ? 2.0 * f : f) + h;
  return mlp_matrices(m, f) + biases;
}

// Multi-head latent attention (DeepSeek-V2 §2.1.2-2.1.3, the released config's q_a_proj,
// q_b_proj, kv_a_proj_with_mqa, kv_b_proj, o_proj): queries h -> q_lora_rank -> heads x
// (nope + rope); keys and values h -> kv_lora_rank + rope (the shared rotary key), then the
// latent kv_lora_rank -> heads x (nope + v); output heads x v -> h.
double mla_split_matrices(const ModelSpec& m) {
  const double h = m.hidden;
  const double a = m.heads;
  const double q_up_in = m.q_lora_rank > 0 ? m.q_lora_rank : h;
  return q_up_in * a * m.qk_head_dim() + static_cast<double>(m.kv_lora_rank) * a * (m.qk_nope_head_dim + m.v_head_dim) +
         a * m.v_head_dim * h;
}

double mla_replicated(const ModelSpec& m) {
  const double h = m.hidden;
  const double q_down = m.q_lora_rank > 0 ? h * m.q_lora_rank + m.q_lora_rank : 0.0;  // + its RMSNorm
  return q_down + h * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank;
}

double attention_parameters(const ModelSpec& m) {
  if (m.is_mla()) return mla_split_matrices(m) + (m.attention_sinks ? m.heads : 0.0);
  const double h = m.hidden;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
  const double sinks = m.attention_sinks ? m.heads : 0.0;  // one logit per head (GPT-OSS's `sinks`)
  if (m.explicit_head_dim == 0) {
    // Q and output projection are h x h; K and V are h x (kv_heads * head_dim) (GQA).
    const double matrices = 2.0 * h * h + 2.0 * h * kv;
    const double biases = m.bias ? (h + 2.0 * kv) + h : 0.0;
    return matrices + biases + sinks;
  }
  const double q = static_cast<double>(m.heads) * m.head_dim();
  const double matrices = 2.0 * h * q + 2.0 * h * kv;
  const double biases = m.bias ? (q + 2.0 * kv) + h : 0.0;
  return matrices + biases + sinks;
}

double norm_parameters(const ModelSpec& m) {
  // LayerNorm has a scale and a shift; RMSNorm only a scale.
  return m.norm == NormKind::layernorm ? 2.0 * m.hidden : 1.0 * m.hidden;
}

}  // namespace

ParameterCounts count_parameters(const ModelSpec& m) {
  ParameterCounts c;
  c.attention_per_layer = attention_parameters(m);
  if (m.is_mla()) c.attention_replicated_per_layer = mla_replicated(m);
  if (m.qk_norm) c.attention_replicated_per_layer += 2.0 * m.qk_head_dim();
  c.mlp_per_layer = m.experts * mlp_parameters(m, m.is_moe() ? m.expert_ffn() : m.ffn_hidden);
  if (m.is_moe()) c.shared_mlp_per_layer = m.shared_experts * mlp_parameters(m, m.shared_ffn());
  c.router_per_layer = m.is_moe() ? static_cast<double>(m.hidden) * m.experts + (m.router_bias ? m.experts : 0) : 0.0;
  // A parallel block normalises once (GPT-J, PaLM); the sequential one before each sub-layer.
  c.norms_per_layer = (m.parallel_block ? 1.0 : 2.0) * norm_parameters(m);
  c.embedding = static_cast<double>(m.vocab) * m.hidden;
  c.positions = m.position == PositionEmbedding::learned ? static_cast<double>(m.seq_len) * m.hidden : 0.0;
  c.output = m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * m.hidden;
  c.final_norm = norm_parameters(m);
  // DeepSeek-V3 §2.2 and its README_WEIGHTS: eh_proj (2h -> h), enorm and hnorm, and the
  // shared head's own norm; embedding and output head are shared with the main model.
  c.mtp_extra_per_module = 2.0 * m.hidden * m.hidden + 3.0 * norm_parameters(m);
  return c;
}

double total_parameters(const ModelSpec& m) {
  const std::vector<LayerKindCount> kinds = count_kinds(layer_runs(m, 0, m.layers));
  const ParameterCounts first = count_parameters(kinds.front().layer);
  double total = first.total(kinds.front().count);
  for (size_t i = 1; i < kinds.size(); ++i) total += kinds[i].count * count_parameters(kinds[i].layer).per_layer();
  if (m.mtp_depth > 0) {
    const ModelSpec last = layer_spec(m, m.layers - 1);
    total += m.mtp_depth * (count_parameters(last).per_layer() + first.mtp_extra_per_module);
  }
  return total;
}

double active_matmul_parameters_per_layer(const ModelSpec& m) {
  const double h = m.hidden;
  const double router = m.is_moe() ? h * m.experts : 0.0;  // every token is scored against every expert
  if (!m.is_mla() && m.explicit_head_dim == 0 && m.shared_experts == 0 && m.moe_ffn_hidden == 0) {
    const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
    const double f = m.ffn_hidden;
    const double mlp = m.activation == FfnActivation::swiglu ? 3.0 * h * f : 2.0 * h * f;
    return 2.0 * h * h + 2.0 * h * kv + router + m.top_k * mlp;
  }
  const double attention =
      m.is_mla() ? mla_split_matrices(m) + mla_replicated(m) - m.kv_lora_rank - (m.q_lora_rank > 0 ? m.q_lora_rank : 0)
                 : 2.0 * h * m.heads * m.head_dim() + 2.0 * h * m.kv_heads * m.head_dim();
  if (!m.is_moe()) return attention + mlp_matrices(m, m.ffn_hidden);
  return attention + router + m.top_k * mlp_matrices(m, m.expert_ffn()) +
         m.shared_experts * mlp_matrices(m, m.shared_ffn());
}

}  // namespace trainsim
