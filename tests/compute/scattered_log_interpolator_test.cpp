#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/compute/scattered_log_interpolator.hpp"
#include "sim/core/error.hpp"

namespace trainsim {
namespace {

// Irregular 3-D samples, like Llama layer shapes: (tokens, output features, reduction).
std::vector<ScatteredSample> samples() {
  std::vector<ScatteredSample> s;
  int line = 1;
  for (double m : {128.0, 1024.0, 4096.0, 32768.0}) {
    for (const auto& nk : std::vector<std::pair<double, double>>{
             {12288, 4096}, {4096, 4096}, {22016, 4096}, {4096, 11008}, {1280, 8192}, {8192, 1024}, {57344, 8192}}) {
      const double value = 0.1 * std::sin(std::log(m) + 2 * std::log(nk.first)) + 0.05 * std::log(nk.second);
      s.push_back({{m, nk.first, nk.second}, value, ++line});
    }
  }
  return s;
}

TEST(ScatteredLogInterpolator, ExactAtSamples) {
  const std::vector<ScatteredSample> s = samples();
  const ScatteredLogInterpolator f(s, "t.csv", "gemm bf16");
  EXPECT_EQ(f.size(), s.size());
  for (const ScatteredSample& p : s) EXPECT_EQ(f.interpolate(p.coords), p.value) << p.line;
}

TEST(ScatteredLogInterpolator, ContinuousAlongALineThroughAndBetweenSamples) {
  const ScatteredLogInterpolator f(samples(), "t.csv", "gemm bf16");
  // Steps of 0.02 % in every coordinate: the value moves by a small amount at every step,
  // including where the set of nearest samples changes and next to samples.
  double previous = f.interpolate({100, 1000, 900});
  double largest_step = 0;
  for (double t = 0; t <= 1; t += 2e-4) {
    const std::vector<double> x = {100 * std::pow(400.0, t), 1000 * std::pow(60.0, t), 900 * std::pow(10.0, t)};
    const double v = f.interpolate(x);
    largest_step = std::max(largest_step, std::abs(v - previous));
    previous = v;
  }
  EXPECT_LT(largest_step, 0.01);
}

TEST(ScatteredLogInterpolator, BoundedByTheSampleValues) {
  const std::vector<ScatteredSample> s = samples();
  const ScatteredLogInterpolator f(s, "t.csv", "gemm bf16");
  double low = s.front().value, high = s.front().value;
  for (const ScatteredSample& p : s) {
    low = std::min(low, p.value);
    high = std::max(high, p.value);
  }
  for (double m = 50; m < 1e5; m *= 1.7) {
    for (double n = 500; n < 1e5; n *= 2.3) {
      const double v = f.interpolate({m, n, 3000});
      EXPECT_GE(v, low);
      EXPECT_LE(v, high);
    }
  }
}

TEST(ScatteredLogInterpolator, DeterministicAndIndependentOfSampleOrder) {
  std::vector<ScatteredSample> s = samples();
  const ScatteredLogInterpolator a(s, "t.csv", "gemm bf16");
  const ScatteredLogInterpolator b(s, "t.csv", "gemm bf16");
  std::reverse(s.begin(), s.end());
  const ScatteredLogInterpolator reversed(s, "t.csv", "gemm bf16");
  for (double m = 64; m < 65536; m *= 3.1) {
    const std::vector<double> x = {m, 7000, 5000};
    EXPECT_EQ(a.interpolate(x), b.interpolate(x));
    EXPECT_NEAR(a.interpolate(x), reversed.interpolate(x), 1e-12);
  }
}

TEST(ScatteredLogInterpolator, OnlyTheNearestSamplesCount) {
  // Two close samples and one far one: with 2 neighbours the far sample's value does not
  // reach points near the close pair.
  std::vector<ScatteredSample> s = {{{1000.0}, 1.0, 1}, {{2000.0}, 2.0, 2}, {{1e9}, 100.0, 3}};
  const ScatteredLogInterpolator f(s, "t.csv", "x", 2);
  const double v = f.interpolate({1400});
  EXPECT_GT(v, 1.0);
  EXPECT_LT(v, 2.0);
  s[2].value = -100;
  EXPECT_EQ(ScatteredLogInterpolator(s, "t.csv", "x", 2).interpolate({1400}), v);
}

TEST(ScatteredLogInterpolator, ASingleSampleIsConstant) {
  const ScatteredLogInterpolator f({{{4096.0, 4096.0}, 0.3, 7}}, "t.csv", "x");
  EXPECT_EQ(f.interpolate({1, 1}), 0.3);
  EXPECT_EQ(f.interpolate({1e6, 7}), 0.3);
}

TEST(ScatteredLogInterpolator, ContainsTheBoundingBoxOnly) {
  const ScatteredLogInterpolator f(samples(), "t.csv", "gemm bf16");
  EXPECT_TRUE(f.contains({2000, 5000, 5000}));
  EXPECT_FALSE(f.contains({64, 5000, 5000}));
  EXPECT_FALSE(f.contains({2000, 5000, 20000}));
}

TEST(ScatteredLogInterpolator, RejectsARepeatedPoint) {
  try {
    ScatteredLogInterpolator({{{1.0, 2.0}, 0, 4}, {{1.0, 2.0}, 1, 9}}, "t.csv", "gemm bf16");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "t.csv");
    EXPECT_EQ(e.key(), "line 9");
    EXPECT_EQ(e.value(), "1 x 2");
    EXPECT_NE(e.rule().find("first on line 4"), std::string::npos);
  }
}

TEST(ScatteredLogInterpolator, RejectsANonPositiveCoordinate) {
  try {
    ScatteredLogInterpolator({{{1.0, 2.0}, 0, 4}, {{0.0, 2.0}, 1, 5}}, "t.csv", "gemm bf16");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "line 5");
    EXPECT_EQ(e.value(), "0 x 2");
  }
}

TEST(ScatteredLogInterpolator, RejectsRowsOfDifferentLengths) {
  EXPECT_THROW(ScatteredLogInterpolator({{{1.0, 2.0}, 0, 4}, {{3.0}, 1, 5}}, "t.csv", "x"), InputError);
}

TEST(ScatteredLogInterpolator, RejectsNoSamples) {
  EXPECT_THROW(ScatteredLogInterpolator({}, "t.csv", "x"), InputError);
}

TEST(ScatteredLogInterpolator, RejectsANonPositiveQuery) {
  const ScatteredLogInterpolator f(samples(), "t.csv", "gemm bf16");
  EXPECT_THROW(f.interpolate({0, 1, 1}), std::invalid_argument);
  EXPECT_THROW(f.interpolate({1, 1}), std::invalid_argument);
}

}  // namespace
}  // namespace trainsim
