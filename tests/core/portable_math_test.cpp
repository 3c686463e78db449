// Portable elementary functions: close to libm everywhere, exact where the result is simple,
// C99's special values, and one fingerprint of many results that any x86-64 CPU reproduces.

#include "sim/core/portable_math.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace trainsim {
namespace {

constexpr double k_inf = std::numeric_limits<double>::infinity();

// Units in the last place between two finite doubles of the same sign.
std::int64_t ulps(double a, double b) {
  if (a == b) return 0;
  if (std::signbit(a) != std::signbit(b)) return std::numeric_limits<std::int64_t>::max();
  const auto ia = static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(std::fabs(a)));
  const auto ib = static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(std::fabs(b)));
  return ia > ib ? ia - ib : ib - ia;
}

// Arguments spread log-uniformly over [lo, hi] (both > 0), from a fixed seed.
std::vector<double> spread(double lo, double hi, int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> xs;
  for (int i = 0; i < n; ++i) {
    const double u = static_cast<double>(rng() >> 11) * 0x1p-53;
    xs.push_back(lo * std::pow(hi / lo, u));
  }
  return xs;
}

TEST(PortableMath, ExpIsWithinTwoUlpsOfLibm) {
  std::int64_t worst = 0;
  for (double x : spread(1e-300, 709.0, 20000, 1)) {
    worst = std::max({worst, ulps(portable::exp(x), std::exp(x)), ulps(portable::exp(-x), std::exp(-x))});
  }
  EXPECT_LE(worst, 2);
  EXPECT_EQ(portable::exp(0.0), 1.0);
  EXPECT_LE(ulps(portable::exp(1.0), std::exp(1.0)), 1);
  EXPECT_EQ(portable::exp(710.0), k_inf);
  EXPECT_EQ(portable::exp(-746.0), 0.0);
  EXPECT_GT(portable::exp(-740.0), 0.0);  // subnormal
  EXPECT_LE(ulps(portable::exp(-740.0), std::exp(-740.0)), 2);
  EXPECT_TRUE(std::isnan(portable::exp(std::nan(""))));
}

TEST(PortableMath, FloatExpIsTheRoundedDouble) {
  for (float x : {-87.0f, -3.5f, -1e-3f, 0.0f, 0.25f, 1.0f, 10.0f, 88.0f}) {
    EXPECT_LE(ulps(portable::exp(x), std::exp(x)), 1) << x;
  }
}

TEST(PortableMath, LogIsWithinOneUlpOfLibm) {
  std::int64_t worst = 0;
  for (double x : spread(1e-310, 1e308, 20000, 2)) worst = std::max(worst, ulps(portable::log(x), std::log(x)));
  for (double x : spread(0.5, 2.0, 20000, 3)) worst = std::max(worst, ulps(portable::log(x), std::log(x)));
  EXPECT_LE(worst, 1);
  EXPECT_EQ(portable::log(1.0), 0.0);
  EXPECT_EQ(portable::log(0.0), -k_inf);
  EXPECT_EQ(portable::log(k_inf), k_inf);
  EXPECT_TRUE(std::isnan(portable::log(-1.0)));
}

TEST(PortableMath, Log1pKeepsSmallArguments) {
  std::int64_t worst = 0;
  for (double x : spread(1e-300, 1e10, 20000, 4)) {
    worst = std::max(worst, ulps(portable::log1p(x), std::log1p(x)));
    if (x < 1) worst = std::max(worst, ulps(portable::log1p(-x), std::log1p(-x)));
  }
  EXPECT_LE(worst, 3);
  EXPECT_EQ(portable::log1p(1e-300), 1e-300);
  EXPECT_EQ(portable::log1p(-1.0), -k_inf);
}

TEST(PortableMath, Log2IsExactAtPowersOfTwo) {
  for (int k = -1074; k <= 1023; ++k) EXPECT_EQ(portable::log2(std::ldexp(1.0, k)), k) << k;
  std::int64_t worst = 0;
  for (double x : spread(1e-300, 1e300, 20000, 5)) worst = std::max(worst, ulps(portable::log2(x), std::log2(x)));
  EXPECT_LE(worst, 1);
}

TEST(PortableMath, PowIsExactForRepresentablePowers) {
  for (int k = -1074; k <= 1023; ++k) EXPECT_EQ(portable::pow(2.0, k), std::ldexp(1.0, k)) << k;
  double ten = 1;
  for (int k = 0; k <= 22; ++k, ten *= 10) EXPECT_EQ(portable::pow(10.0, k), ten) << k;
  double three = 1;
  for (int k = 0; k <= 33; ++k, three *= 3) EXPECT_EQ(portable::pow(3.0, k), three) << k;
  EXPECT_EQ(portable::pow(1024.0, 3.0), 1073741824.0);
  EXPECT_EQ(portable::pow(4.0, 0.5), 2.0);
  EXPECT_EQ(portable::pow(-2.0, 3.0), -8.0);
}

TEST(PortableMath, PowIsCloseToLibm) {
  std::mt19937_64 rng(6);
  std::int64_t worst = 0;
  for (int i = 0; i < 20000; ++i) {
    const double x = std::exp(static_cast<double>(rng() >> 11) * 0x1p-53 * 20 - 10);
    const double y = static_cast<double>(rng() >> 11) * 0x1p-53 * 60 - 30;
    worst = std::max(worst, ulps(portable::pow(x, y), std::pow(x, y)));
  }
  EXPECT_LE(worst, 2);
  // Adam's bias corrections: beta^t for many steps.
  for (int t = 1; t < 100000; t += 997) EXPECT_LE(ulps(portable::pow(0.999, t), std::pow(0.999, t)), 2) << t;
}

TEST(PortableMath, PowHasC99sSpecialValues) {
  const double nan = std::nan("");
  EXPECT_EQ(portable::pow(nan, 0.0), 1.0);
  EXPECT_EQ(portable::pow(1.0, nan), 1.0);
  EXPECT_TRUE(std::isnan(portable::pow(nan, 1.0)));
  EXPECT_TRUE(std::isnan(portable::pow(-2.0, 0.5)));
  EXPECT_EQ(portable::pow(0.0, -1.0), k_inf);
  EXPECT_EQ(portable::pow(-0.0, -1.0), -k_inf);
  EXPECT_EQ(portable::pow(-0.0, 3.0), -0.0);
  EXPECT_TRUE(std::signbit(portable::pow(-0.0, 3.0)));
  EXPECT_EQ(portable::pow(0.5, k_inf), 0.0);
  EXPECT_EQ(portable::pow(0.5, -k_inf), k_inf);
  EXPECT_EQ(portable::pow(-1.0, k_inf), 1.0);
  EXPECT_EQ(portable::pow(-k_inf, 3.0), -k_inf);
  EXPECT_EQ(portable::pow(k_inf, -2.0), 0.0);
  EXPECT_EQ(portable::pow(10.0, 400.0), k_inf);
  EXPECT_EQ(portable::pow(10.0, -400.0), 0.0);
}

TEST(PortableMath, CosPiIsExactAtQuarterTurnsAndCloseElsewhere) {
  EXPECT_EQ(portable::cos_pi(0.0), 1.0);
  EXPECT_EQ(portable::cos_pi(0.5), 0.0);
  EXPECT_EQ(portable::cos_pi(1.0), -1.0);
  EXPECT_EQ(portable::cos_pi(1.5), 0.0);
  EXPECT_EQ(portable::cos_pi(-2.0), 1.0);
  EXPECT_EQ(portable::cos_pi(1e300), 1.0);
  std::mt19937_64 rng(7);
  double worst = 0;
  for (int i = 0; i < 20000; ++i) {
    const double x = static_cast<double>(rng() >> 11) * 0x1p-53 * 4 - 2;
    // Against libm's cos of a rounded pi x: the difference is that rounding, at most
    // pi |x| 2^-53 |sin|, plus an ulp or two.
    worst = std::max(worst, std::fabs(portable::cos_pi(x) - std::cos(M_PI * x)));
  }
  EXPECT_LT(worst, 1e-15);
}

TEST(PortableMath, GammaMatchesFactorialsAndLibm) {
  double f = 1;
  for (int n = 1; n <= 23; ++n) {
    EXPECT_EQ(portable::tgamma(n), f) << n;
    f *= n;
  }
  for (double x : spread(1e-3, 170.0, 5000, 8)) EXPECT_NEAR(portable::tgamma(x) / std::tgamma(x), 1.0, 4e-13) << x;
  EXPECT_NEAR(portable::tgamma(0.5) / std::sqrt(M_PI), 1.0, 4e-15);
  EXPECT_EQ(portable::tgamma(172.0), k_inf);
  EXPECT_TRUE(std::isnan(portable::tgamma(-1.0)));
}

TEST(PortableMath, ResultsAreTheSameOnEveryCpu) {
  // A fingerprint of 40,000 results: IEEE operations alone give the same bits on any x86-64
  // CPU, so this constant holds everywhere (it was computed on this test's first run). A
  // change to the functions changes it, and so do the printed goldens: update both.
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](double v) { h = (h ^ std::bit_cast<std::uint64_t>(v)) * 1099511628211ull; };
  std::mt19937_64 rng(9);
  for (int i = 0; i < 10000; ++i) {
    const double u = static_cast<double>(rng() >> 11) * 0x1p-53;
    mix(portable::exp(u * 80 - 40));
    mix(portable::log(std::ldexp(u + 0.5, static_cast<int>(rng() % 200) - 100)));
    mix(portable::pow(u * 3, u * 20 - 10));
    mix(portable::cos_pi(u * 4 - 2));
  }
  EXPECT_EQ(h, 15603820477678511289ull) << "fingerprint " << h;
}

}  // namespace
}  // namespace trainsim
