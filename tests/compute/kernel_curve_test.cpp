#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/compute/kernel_curve.hpp"
#include "sim/core/error.hpp"

namespace trainsim {
namespace {

// A GEMM-like time: launch, compute at an efficiency that rises with size, memory.
double gemm_time(double m, double n, double k) {
  return 4e-6 + 2 * m * n * k / 7e14 * (1 + 256 / m + 256 / n) + 2 * (m * k + k * n + m * n) / 3e12;
}

CurveSample gemm_sample(double m, double n, double k, double wobble = 1.0, int line = 0) {
  return {{m, n, k}, gemm_time(m, n, k) * wobble, 2 * m * n * k, 2 * (m * k + k * n + m * n), line};
}

// Scattered Llama-like shapes with a few percent of measurement noise.
std::vector<CurveSample> scattered() {
  std::vector<CurveSample> s;
  int line = 1;
  for (double m : {256.0, 1024.0, 4096.0, 16384.0}) {
    for (const auto& nk : std::vector<std::pair<double, double>>{
             {12288, 4096}, {4096, 4096}, {22016, 4096}, {4096, 11008}, {1536, 4096}, {4096, 1376}}) {
      ++line;
      s.push_back(gemm_sample(m, nk.first, nk.second, 1 + 0.03 * std::sin(line), line));
    }
  }
  return s;
}

TEST(KernelCurve, ACompleteGridIsInterpolatedOnTheGrid) {
  std::vector<CurveSample> s;
  for (double m : {512.0, 4096.0}) {
    for (double n : {512.0, 4096.0}) {
      for (double k : {512.0, 4096.0}) s.push_back(gemm_sample(m, n, k));
    }
  }
  const KernelCurve curve(s, "t.csv", "gemm bf16");
  EXPECT_TRUE(curve.is_grid());
  for (const CurveSample& p : s) EXPECT_EQ(curve.time_s(p.coords, p.flops, p.bytes), p.time_s);
}

TEST(KernelCurve, ScatteredSamplesAreExactAtTheSamples) {
  const std::vector<CurveSample> s = scattered();
  const KernelCurve curve(s, "t.csv", "gemm bf16");
  EXPECT_FALSE(curve.is_grid());
  EXPECT_EQ(curve.points(), s.size());
  for (const CurveSample& p : s) EXPECT_NEAR(curve.time_s(p.coords, p.flops, p.bytes) / p.time_s, 1.0, 1e-12);
}

TEST(KernelCurve, ScatteredTimesGrowWithEveryDimension) {
  const KernelCurve curve(scattered(), "t.csv", "gemm bf16");
  for (int axis = 0; axis < 3; ++axis) {
    double previous = 0;
    for (double x = 64; x <= 131072; x *= 1.05) {
      std::vector<double> p = {3000, 6000, 3000};
      p[static_cast<std::size_t>(axis)] = x;
      const CurveSample at = gemm_sample(p[0], p[1], p[2]);
      const double t = curve.time_s(p, at.flops, at.bytes);
      EXPECT_GT(t, previous) << "axis " << axis << " at " << x;
      previous = t;
    }
  }
}

TEST(KernelCurve, ScatteredTimesFollowTheSamplesBetweenThem) {
  // Without noise, between the samples the curve stays within a few percent of the function
  // they were drawn from: the fitted roofline carries the trend, the residual is small.
  std::vector<CurveSample> s = scattered();
  for (CurveSample& p : s) p.time_s = gemm_time(p.coords[0], p.coords[1], p.coords[2]);
  const KernelCurve curve(s, "t.csv", "gemm bf16");
  for (double m : {300.0, 2000.0, 9000.0}) {
    for (double n : {2000.0, 8000.0, 16000.0}) {
      const CurveSample at = gemm_sample(m, n, 4096);
      EXPECT_NEAR(curve.time_s(at.coords, at.flops, at.bytes) / at.time_s, 1.0, 0.05) << m << " " << n;
    }
  }
}

TEST(KernelCurve, RepeatedPointsTakeTheirMedian) {
  // A 1-D curve (bytes) with one point measured three times and one twice.
  std::vector<CurveSample> s = {{{1e6}, 3e-6, 0, 1e6, 1},
                                {{1e6}, 9e-6, 0, 1e6, 2},
                                {{1e6}, 4e-6, 0, 1e6, 3},
                                {{1e8}, 60e-6, 0, 1e8, 4},
                                {{1e8}, 70e-6, 0, 1e8, 5}};
  const KernelCurve curve(s, "t.csv", "rmsnorm fp16");
  EXPECT_TRUE(curve.is_grid());
  EXPECT_EQ(curve.points(), 2U);
  EXPECT_EQ(curve.time_s({1e6}, 0, 1e6), 4e-6);
  EXPECT_DOUBLE_EQ(curve.time_s({1e8}, 0, 1e8), 65e-6);
}

TEST(KernelCurve, RepeatedScatteredPointsTakeTheirMedian) {
  std::vector<CurveSample> s = scattered();
  CurveSample again = s[5];
  again.time_s *= 1.5;
  again.line = 900;
  s.push_back(again);
  again.time_s *= 2;
  again.line = 901;
  s.push_back(again);
  const KernelCurve curve(s, "t.csv", "gemm bf16");
  EXPECT_NEAR(curve.time_s(s[5].coords, s[5].flops, s[5].bytes) / (s[5].time_s * 1.5), 1.0, 1e-12);
}

TEST(KernelCurve, DeterministicForTheSameSamples) {
  const KernelCurve a(scattered(), "t.csv", "gemm bf16");
  const KernelCurve b(scattered(), "t.csv", "gemm bf16");
  for (double m = 100; m < 1e5; m *= 2.9) {
    const CurveSample at = gemm_sample(m, 5000, 3000);
    EXPECT_EQ(a.time_s(at.coords, at.flops, at.bytes), b.time_s(at.coords, at.flops, at.bytes));
  }
}

TEST(KernelCurve, NeverFasterThanTheBestMeasuredRate) {
  // The grid stops at 4096; a 16384-wide GEMM beyond it keeps the best rate the samples
  // reached instead of the fitted roofline's asymptote.
  std::vector<CurveSample> s;
  for (double m : {512.0, 4096.0})
    for (double n : {512.0, 4096.0})
      for (double k : {512.0, 4096.0}) s.push_back(gemm_sample(m, n, k));
  const KernelCurve curve(s, "t.csv", "gemm/bf16");
  double best = 0;
  for (const CurveSample& c : s) best = std::max(best, c.flops / c.time_s);
  const double m = 16384, n = 16384, k = 16384;
  const double flops = 2 * m * n * k;
  const double t = curve.time_s({m, n, k}, flops, 2 * (m * k + k * n + m * n));
  EXPECT_LE(flops / t, best * (1 + 1e-12));
  EXPECT_NEAR(flops / t, best, 0.05 * best);  // the plateau: about the largest shape's rate
  // Exact at the samples still.
  for (const CurveSample& c : s) EXPECT_NEAR(curve.time_s(c.coords, c.flops, c.bytes) / c.time_s, 1.0, 1e-12);
}

TEST(KernelCurve, RejectsANonPositiveShape) {
  std::vector<CurveSample> s = scattered();
  s[3].coords[1] = 0;
  EXPECT_THROW(KernelCurve(s, "t.csv", "gemm bf16"), InputError);
}

}  // namespace
}  // namespace trainsim
