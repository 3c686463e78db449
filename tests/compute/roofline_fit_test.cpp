#include <gtest/gtest.h>

#include <vector>

#include "sim/compute/roofline_fit.hpp"

namespace trainsim {
namespace {

TEST(RooflineFit, ReproducesASyntheticRoofline) {
  // time = 4 us + flops / 750 TFLOP/s + bytes / 4.2 TB/s, sampled on a GEMM grid.
  const double overhead = 4e-6, flop_rate = 750e12, byte_rate = 4.2e12;
  std::vector<FitSample> samples;
  for (double m : {512.0, 2048.0, 8192.0}) {
    for (double n : {512.0, 2048.0, 8192.0}) {
      for (double k : {128.0, 2048.0, 32768.0}) {
        const double flops = 2 * m * n * k, bytes = 2 * (m * k + k * n + m * n);
        samples.push_back({flops, bytes, overhead + flops / flop_rate + bytes / byte_rate});
      }
    }
  }
  const FittedRoofline fit = fit_roofline(samples);
  EXPECT_NEAR(fit.overhead_s, overhead, overhead * 1e-6);
  EXPECT_NEAR(1 / fit.s_per_flop, flop_rate, flop_rate * 1e-6);
  EXPECT_NEAR(1 / fit.s_per_byte, byte_rate, byte_rate * 1e-6);
  EXPECT_LT(fit.rms_relative_error, 1e-9);
  // Extrapolation to a shape far outside the samples follows the roofline.
  const double flops = 2 * 65536.0 * 65536 * 65536, bytes = 2 * 3 * 65536.0 * 65536;
  EXPECT_NEAR(fit.time_s(flops, bytes), overhead + flops / flop_rate + bytes / byte_rate, 1e-9);
}

TEST(RooflineFit, CoefficientsAreNonNegative) {
  // Pure bandwidth data (no FLOPs) that a free fit would give a negative overhead.
  std::vector<FitSample> samples;
  for (double b : {1e6, 1e7, 1e8, 1e9}) samples.push_back({0, b, b / 3e12 * (b < 5e6 ? 0.9 : 1.0)});
  const FittedRoofline fit = fit_roofline(samples);
  EXPECT_GE(fit.overhead_s, 0);
  EXPECT_EQ(fit.s_per_flop, 0);
  EXPECT_GT(fit.s_per_byte, 0);
}

TEST(RooflineFit, IsDeterministic) {
  std::vector<FitSample> samples = {{1e9, 1e6, 3e-6}, {1e11, 1e8, 2e-4}, {1e12, 1e9, 1.5e-3}, {1e10, 1e7, 2e-5}};
  const FittedRoofline a = fit_roofline(samples);
  const FittedRoofline b = fit_roofline(samples);
  EXPECT_EQ(a.overhead_s, b.overhead_s);
  EXPECT_EQ(a.s_per_flop, b.s_per_flop);
  EXPECT_EQ(a.s_per_byte, b.s_per_byte);
}

TEST(RooflineFit, RejectsNoSamples) {
  EXPECT_THROW(fit_roofline({}), std::invalid_argument);
}

}  // namespace
}  // namespace trainsim
