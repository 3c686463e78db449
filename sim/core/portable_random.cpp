#include "sim/core/portable_random.hpp"

#include <cmath>

#include "sim/core/portable_math.hpp"

namespace trainsim::portable {

double uniform01(std::mt19937_64& rng) {
  return std::generate_canonical<double, 53>(rng);
}

double exponential(std::mt19937_64& rng, double rate) {
  return -log(1.0 - uniform01(rng)) / rate;
}

double weibull(std::mt19937_64& rng, double shape, double scale) {
  return scale * pow(-log(1.0 - uniform01(rng)), 1.0 / shape);
}

double NormalDraws::next(std::mt19937_64& rng) {
  if (has_saved_) {
    has_saved_ = false;
    return saved_;
  }
  double x = 0, y = 0, r2 = 0;
  do {
    x = 2.0 * uniform01(rng) - 1.0;
    y = 2.0 * uniform01(rng) - 1.0;
    r2 = x * x + y * y;
  } while (r2 > 1.0 || r2 == 0.0);
  const double m = std::sqrt(-2.0 * log(r2) / r2);  // sqrt is IEEE-exact on every CPU
  saved_ = x * m;
  has_saved_ = true;
  return y * m;
}

}  // namespace trainsim::portable
