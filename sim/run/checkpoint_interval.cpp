#include "sim/run/checkpoint_interval.hpp"

#include <algorithm>
#include <cmath>

namespace trainsim {

long long checkpoint_steps(double interval_s, double step_s, bool round_up) {
  if (!(interval_s > 0)) return -1;
  double steps = interval_s / step_s;
  if (!(steps < k_max_checkpoint_steps)) steps = k_max_checkpoint_steps;  // also an infinite interval
  const double whole = round_up ? std::ceil(steps) : std::round(steps);
  return std::max(1LL, static_cast<long long>(whole));
}

double young_interval_s(double delta_s, double mtti_s) {
  return std::sqrt(2.0 * delta_s * mtti_s);
}

double daly_interval_s(double delta_s, double mtti_s) {
  if (delta_s >= 2.0 * mtti_s) return mtti_s;
  const double x = delta_s / (2.0 * mtti_s);
  return std::sqrt(2.0 * delta_s * mtti_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - delta_s;
}

}  // namespace trainsim
