#include "models/model_state_memory.hpp"

namespace trainsim {

StateBytesPerParameter state_bytes_per_parameter(Precision precision, Optimizer optimizer) {
  const bool fp32 = precision == Precision::fp32;
  StateBytesPerParameter b;
  b.weights = fp32 ? 4.0 : 2.0;
  b.gradients = fp32 ? 4.0 : 2.0;
  if (optimizer == Optimizer::adam)
    b.optimizer = fp32 ? 8.0 : 12.0;
  else
    b.optimizer = fp32 ? 4.0 : 8.0;
  return b;
}

StateBytesPerParameter state_bytes_per_parameter(const TrainingSpec& tr) {
  StateBytesPerParameter b = state_bytes_per_parameter(tr.precision, tr.optimizer);
  b.gradients = gradient_element_bytes(tr);
  return b;
}

ModelStateBytes model_state_bytes(double parameters, const StateBytesPerParameter& per_param, int zero,
                                  int shard_ranks) {
  const double nd = shard_ranks;
  ModelStateBytes s;
  s.weights = parameters * per_param.weights / (zero >= 3 ? nd : 1.0);
  s.gradients = parameters * per_param.gradients / (zero >= 2 ? nd : 1.0);
  s.optimizer_states = parameters * per_param.optimizer / (zero >= 1 ? nd : 1.0);
  return s;
}

}  // namespace trainsim
