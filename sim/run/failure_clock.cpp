#include "sim/run/failure_clock.hpp"

#include <algorithm>
#include <limits>

#include "sim/core/portable_math.hpp"
#include "sim/core/portable_random.hpp"

namespace trainsim {

FailureClock::FailureClock(const FailureSpec& spec, int nodes, int units_per_node, std::mt19937_64& rng)
    : spec_(spec), rng_(rng), per_node_(units_per_node) {
  for (int u = 0; u < nodes * per_node_; ++u) next_.push_back(draw(0.0));
  in_use_ = nodes * per_node_;
}

NodeFailure FailureClock::next() const {
  if (in_use_ == 0) return {std::numeric_limits<double>::infinity(), -1, -1};
  const auto first = std::min_element(next_.begin(), next_.begin() + in_use_);
  const int unit = static_cast<int>(first - next_.begin());
  return {*first, unit, unit / per_node_};
}

void FailureClock::renew(int unit, double at) {
  next_[static_cast<std::size_t>(unit)] = draw(at);
}

void FailureClock::use(int nodes, double at) {
  const int units = nodes * per_node_;
  for (int u = in_use_; u < units; ++u) next_[static_cast<std::size_t>(u)] = draw(at);
  in_use_ = units;
}

double FailureClock::draw(double now) {
  if (spec_.distribution == FailureDistribution::weibull) {
    // Weibull(k, lambda) with mean lambda Gamma(1 + 1/k) = the node MTBF.
    const double k = spec_.weibull_shape;
    return now + portable::weibull(rng_, k, spec_.mtbf_s / portable::tgamma(1.0 + 1.0 / k));
  }
  return now + portable::exponential(rng_, 1.0 / spec_.mtbf_s);
}

}  // namespace trainsim
