#include "sim/drill/loss_scaler.hpp"

namespace trainsim::drill {

LossScaleState loss_scale_initial(const LossScaleSpec& spec) {
  return {spec.enabled ? spec.initial : 1.0, 0};
}

void loss_scale_update(const LossScaleSpec& spec, bool overflow, LossScaleState& state) {
  if (!spec.enabled) return;
  if (overflow) {
    state.scale *= spec.backoff;
    state.good_steps = 0;
    return;
  }
  if (++state.good_steps >= spec.growth_interval) {
    state.scale *= spec.growth;
    state.good_steps = 0;
  }
}

}  // namespace trainsim::drill
