#include "models/gradient_tensors.hpp"

#include <numeric>

#include "models/layer_kinds.hpp"
#include "models/parameter_count.hpp"

namespace trainsim {

namespace {

// One layer's tensors on one GPU in registration (forward) order.
void add_layer(const ModelSpec& l, double tp, std::vector<double>& out) {
  const ParameterCounts pc = count_parameters(l);
  const double norm = l.parallel_block ? pc.norms_per_layer : pc.norms_per_layer / 2.0;
  const double h = l.hidden;
  // The output projection: heads x value head dim into the hidden size.
  const double o = static_cast<double>(l.heads) * (l.is_mla() ? l.v_head_dim : l.head_dim()) * h;
  out.push_back(norm);  // the QKV projection's fused norm
  if (l.is_mla()) {
    const double q_up_in = l.q_lora_rank > 0 ? l.q_lora_rank : h;
    const double q_up = q_up_in * l.heads * l.qk_head_dim();
    out.push_back(q_up / tp);
    out.push_back((pc.attention_per_layer - q_up - o) / tp);  // the key-value up-projection
  } else {
    out.push_back((pc.attention_per_layer - o) / tp);  // QKV (+ biases, sinks)
  }
  if (pc.attention_replicated_per_layer > 0) out.push_back(pc.attention_replicated_per_layer);
  out.push_back(o / tp);
  if (!l.parallel_block) out.push_back(norm);  // the MLP's fused norm
  if (l.is_moe()) {
    if (pc.router_per_layer > 0) out.push_back(pc.router_per_layer);
    if (pc.shared_mlp_per_layer > 0) {
      const double first = l.activation == FfnActivation::swiglu ? 2.0 / 3.0 : 0.5;
      out.push_back(pc.shared_mlp_per_layer * first / tp);
      out.push_back(pc.shared_mlp_per_layer * (1.0 - first) / tp);
    }
    return;
  }
  const double first = l.activation == FfnActivation::swiglu ? 2.0 / 3.0 : 0.5;  // gate and up fused
  out.push_back(pc.mlp_per_layer * first / tp);
  out.push_back(pc.mlp_per_layer * (1.0 - first) / tp);
}

}  // namespace

std::vector<double> chunk_gradient_tensors(const ModelSpec& m, const ParallelSpec& par, const ModelChunk& c) {
  const ParameterCounts pc = count_parameters(m);
  const double tp = par.tp;
  std::vector<double> out;
  if (c.has_embedding) {
    out.push_back(pc.embedding / tp);
    if (pc.positions > 0) out.push_back(pc.positions);
  }
  for (int i = c.first_layer; i < c.first_layer + c.layers; ++i) add_layer(layer_spec(m, i), tp, out);
  if (c.has_output) out.push_back(pc.final_norm);
  for (int i = 0; i < c.mtp_layers; ++i) {
    add_layer(layer_spec(m, m.layers - 1), tp, out);
    out.push_back(2.0 * m.hidden * m.hidden / tp);  // the module's projection
  }
  if (c.has_output) {
    if (!m.tied_embeddings)
      out.push_back(pc.output / tp);
    else if (par.pp > 1)
      out.push_back(pc.embedding / tp);
  }
  std::vector<double> backward(out.rbegin(), out.rend());
  std::erase_if(backward, [](double t) { return t <= 0; });
  return backward;
}

std::vector<double> bucket_sizes(const std::vector<double>& tensors, double bucket) {
  const double total = std::accumulate(tensors.begin(), tensors.end(), 0.0);
  if (bucket <= 0) return {total};
  std::vector<double> out;
  double open = 0;
  for (const double t : tensors) {
    open += t;
    if (open >= bucket) {
      out.push_back(open);
      open = 0;
    }
  }
  if (open > 0 || out.empty()) out.push_back(open);
  return out;
}

}  // namespace trainsim
