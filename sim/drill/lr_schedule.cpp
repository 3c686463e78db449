#include "sim/drill/lr_schedule.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/portable_math.hpp"

namespace trainsim::drill {

double learning_rate(const OptimizerSpec& spec, long long updates) {
  const long long n = updates + 1;  // Megatron-LM: max_lr * num_steps / warmup_steps, from step 1
  if (spec.warmup_steps > 0 && n <= spec.warmup_steps)
    return spec.lr_peak * static_cast<double>(n) / static_cast<double>(spec.warmup_steps);
  if (n >= spec.decay_steps) return spec.lr_min;
  const double span = static_cast<double>(std::max<long long>(1, spec.decay_steps - spec.warmup_steps));
  const double progress = static_cast<double>(n - spec.warmup_steps) / span;
  return spec.lr_min + 0.5 * (spec.lr_peak - spec.lr_min) * (1.0 + portable::cos_pi(progress));
}

}  // namespace trainsim::drill
