#pragma once
// The learning-rate schedule: linear warmup to the peak, then cosine decay to the minimum
// (Loshchilov & Hutter 2017; GPT-3, Brown et al. 2020, App. B; Megatron-LM's
// OptimizerParamScheduler with lr_decay_style = cosine). The scheduler's state is the number
// of updates it has seen: as in Megatron-LM it advances only on a step that updated the
// weights (not on one skipped for a loss-scale overflow).

#include "sim/drill/drill_spec.hpp"

namespace trainsim::drill {

/// The learning rate of the update after `updates` earlier ones.
double learning_rate(const OptimizerSpec& spec, long long updates);

}  // namespace trainsim::drill
