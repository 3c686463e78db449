#pragma once
// Dynamic loss scaling for fp16 training (Micikevicius et al. 2018, "Mixed Precision
// Training", §3.2; PyTorch's torch.cuda.amp.GradScaler): the loss is multiplied by the scale
// before backward so small gradients survive fp16; a reduced gradient holding an inf or NaN
// skips the step and backs the scale off; a run of good steps grows it.

#include "sim/drill/drill_spec.hpp"

namespace trainsim::drill {

struct LossScaleState {
  double scale = 1.0;
  long long good_steps = 0;  ///< since the last overflow or growth
  bool operator==(const LossScaleState&) const = default;
};

/// The state a run starts with: `spec.initial` when enabled, else 1 (no scaling).
LossScaleState loss_scale_initial(const LossScaleSpec& spec);

/// After a step whose reduced gradient was finite (`overflow` false) or not.
void loss_scale_update(const LossScaleSpec& spec, bool overflow, LossScaleState& state);

}  // namespace trainsim::drill
