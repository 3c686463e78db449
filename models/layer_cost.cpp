#include "models/layer_cost.hpp"

#include "models/parameter_count.hpp"

namespace trainsim {

double layer_forward_flops_per_token(const ModelSpec& m) {
  return 2.0 * active_matmul_parameters_per_layer(m) + 4.0 * m.seq_len * static_cast<double>(m.hidden);
}

double output_forward_flops_per_token(const ModelSpec& m) {
  return 2.0 * static_cast<double>(m.hidden) * m.vocab;
}

}  // namespace trainsim
