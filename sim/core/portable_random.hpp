#pragma once
// Random draws that depend on the engine's numbers only, never on the CPU. libstdc++'s
// exponential, Weibull and normal distributions call the C library's log, pow and sqrt, whose
// last bits vary by CPU (sim/core/portable_math.hpp says why); these draw the same way
// (inversion for the exponential and Weibull, Marsaglia's polar method for the normal, each
// uniform taken as std::generate_canonical<double, 53>) with the portable functions, so a
// seed gives the same failures and expert loads on every machine.

#include <random>

namespace trainsim::portable {

/// A uniform double in [0, 1) from one 64-bit draw.
double uniform01(std::mt19937_64& rng);

/// An exponential draw of rate `rate` (the inverse of its mean): -ln(1 - U) / rate.
double exponential(std::mt19937_64& rng, double rate);

/// A Weibull draw of shape k and scale lambda: lambda (-ln(1 - U))^(1 / k).
double weibull(std::mt19937_64& rng, double shape, double scale);

/// Standard normal draws by Marsaglia's polar method (Marsaglia & Bray, SIAM Review 6, 1964):
/// each accepted pair (x, y) in the unit disc gives y m now and x m on the next call,
/// m = sqrt(-2 ln(r^2) / r^2).
class NormalDraws {
 public:
  double next(std::mt19937_64& rng);

 private:
  double saved_ = 0;
  bool has_saved_ = false;
};

}  // namespace trainsim::portable
