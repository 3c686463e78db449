#include "sim/run/failure_clock.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainsim {

FailureClock::FailureClock(const FailureSpec& spec, int nodes, std::mt19937_64& rng) : spec_(spec), rng_(rng) {
  for (int n = 0; n < nodes; ++n) next_.push_back(draw(0.0));
  in_use_ = nodes;
}

NodeFailure FailureClock::next() const {
  if (in_use_ == 0) return {std::numeric_limits<double>::infinity(), -1};
  const auto first = std::min_element(next_.begin(), next_.begin() + in_use_);
  return {*first, static_cast<int>(first - next_.begin())};
}

void FailureClock::renew(int node, double at) {
  next_[static_cast<std::size_t>(node)] = draw(at);
}

void FailureClock::use(int nodes, double at) {
  for (int n = in_use_; n < nodes; ++n) next_[static_cast<std::size_t>(n)] = draw(at);
  in_use_ = nodes;
}

double FailureClock::draw(double now) {
  if (spec_.distribution == FailureDistribution::weibull) {
    // Weibull(k, lambda) with mean lambda Gamma(1 + 1/k) = the node MTBF.
    const double k = spec_.weibull_shape;
    std::weibull_distribution<double> d(k, spec_.node_mtbf_s / std::tgamma(1.0 + 1.0 / k));
    return now + d(rng_);
  }
  std::exponential_distribution<double> d(1.0 / spec_.node_mtbf_s);
  return now + d(rng_);
}

}  // namespace trainsim
