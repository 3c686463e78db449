#include "sim/run/checkpoint_interval.hpp"

#include <cmath>

namespace trainsim {

double young_interval_s(double delta_s, double mtti_s) {
  return std::sqrt(2.0 * delta_s * mtti_s);
}

double daly_interval_s(double delta_s, double mtti_s) {
  if (delta_s >= 2.0 * mtti_s) return mtti_s;
  const double x = delta_s / (2.0 * mtti_s);
  return std::sqrt(2.0 * delta_s * mtti_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - delta_s;
}

}  // namespace trainsim
