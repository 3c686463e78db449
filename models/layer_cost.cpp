#include "models/layer_cost.hpp"

#include <algorithm>

#include "models/parameter_count.hpp"

namespace trainsim {

double layer_forward_flops_per_token(const ModelSpec& m) {
  if (!m.is_mla() && m.explicit_head_dim == 0 && m.sliding_window == 0)
    return 2.0 * active_matmul_parameters_per_layer(m) + 4.0 * m.seq_len * static_cast<double>(m.hidden);
  // Scores over the keys a query sees (a window's at most) and their product with V, per head.
  const double keys = m.sliding_window > 0 ? std::min(m.sliding_window, m.seq_len) : m.seq_len;
  return 2.0 * active_matmul_parameters_per_layer(m) +
         2.0 * keys * m.heads * static_cast<double>(m.qk_head_dim() + m.value_head_dim());
}

double output_forward_flops_per_token(const ModelSpec& m) {
  return 2.0 * static_cast<double>(m.hidden) * m.vocab;
}

}  // namespace trainsim
