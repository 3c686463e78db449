#pragma once
// A small drill for the tests: 2 ranks x 2 micro-batches of 2 samples (global batch 8),
// 30 steps, a checkpoint every 10, trains in a fraction of a second.

#include "sim/drill/drill_spec.hpp"

namespace trainsim::drill::testing {

inline DrillSpec small_spec() {
  DrillSpec s;
  s.layout = {2, 2, 2, 1};
  s.steps = 30;
  s.checkpoint_every = 10;
  s.optimizer.warmup_steps = 5;
  s.optimizer.decay_steps = 30;
  s.seed = 7;
  return s;
}

/// The same in fp16 with dynamic loss scaling, its reduction in fp16.
inline DrillSpec fp16_spec() {
  DrillSpec s = small_spec();
  s.reduction_format = NumberFormat::fp16;
  s.loss_scale.enabled = true;
  return s;
}

}  // namespace trainsim::drill::testing
