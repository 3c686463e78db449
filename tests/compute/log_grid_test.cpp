#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/compute/log_grid.hpp"
#include "sim/core/error.hpp"

namespace trainsim {
namespace {

// A 3-D grid whose values are a non-power-law function of (m, n, k), so that
// interpolation is not trivially exact between points.
double value_at(double m, double n, double k) {
  return 3e-6 + 2 * m * n * k / 7e14 + (m * k + n * k + m * n) / 3e12;
}

const std::vector<double> k_axis = {256, 1024, 4096, 16384};

std::vector<GridNode> grid_nodes() {
  std::vector<GridNode> nodes;
  int line = 1;
  for (double m : k_axis) {
    for (double n : k_axis) {
      for (double k : k_axis) nodes.push_back({{m, n, k}, {value_at(m, n, k)}, ++line});
    }
  }
  return nodes;
}

TEST(LogGrid, ExactOnGridPoints) {
  const LogGrid grid(grid_nodes(), "t.csv", "gemm bf16");
  for (double m : k_axis) {
    for (double n : k_axis) {
      for (double k : k_axis) EXPECT_EQ(grid.interpolate({m, n, k})[0], value_at(m, n, k));
    }
  }
}

TEST(LogGrid, MonotoneBetweenGridPoints) {
  const LogGrid grid(grid_nodes(), "t.csv", "gemm bf16");
  // Along every axis, through points that are off the grid in the other two axes too.
  for (int axis = 0; axis < 3; ++axis) {
    double previous = 0;
    for (double x = 256; x <= 16384; x *= 1.03) {
      std::vector<double> p = {700, 3000, 9000};
      p[static_cast<std::size_t>(axis)] = x;
      const double v = grid.interpolate(p)[0];
      EXPECT_GE(v, previous) << "axis " << axis << " at " << x;
      previous = v;
    }
  }
}

TEST(LogGrid, InterpolatesBetweenNeighbours) {
  const LogGrid grid(grid_nodes(), "t.csv", "gemm bf16");
  const double v = grid.interpolate({2048, 1024, 1024})[0];
  EXPECT_GT(v, value_at(1024, 1024, 1024));
  EXPECT_LT(v, value_at(4096, 1024, 1024));
  // Log-linear: the geometric mean of the neighbours at the log midpoint.
  EXPECT_NEAR(v, std::sqrt(value_at(1024, 1024, 1024) * value_at(4096, 1024, 1024)), 1e-15);
}

TEST(LogGrid, ClampsOutsideTheGrid) {
  const LogGrid grid(grid_nodes(), "t.csv", "gemm bf16");
  EXPECT_FALSE(grid.contains({100, 1024, 1024}));
  EXPECT_EQ(grid.interpolate({100, 1024, 1024})[0], value_at(256, 1024, 1024));
}

TEST(LogGrid, RejectsAnIncompleteGrid) {
  std::vector<GridNode> nodes = grid_nodes();
  nodes.erase(nodes.begin() + 5);  // (256, 1024, 1024)
  try {
    const LogGrid grid(nodes, "t.csv", "gemm bf16");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "t.csv");
    EXPECT_EQ(e.key(), "gemm bf16");
    EXPECT_EQ(e.value(), "256 x 1024 x 1024");
    EXPECT_NE(e.rule().find("incomplete"), std::string::npos);
  }
}

TEST(LogGrid, RejectsADuplicatePoint) {
  std::vector<GridNode> nodes = grid_nodes();
  nodes.push_back({{256, 256, 256}, {1.0}, 99});
  try {
    const LogGrid grid(nodes, "t.csv", "gemm bf16");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "line 99");
    EXPECT_NE(e.rule().find("duplicate"), std::string::npos);
  }
}

TEST(LogGrid, RejectsANonPositiveCoordinate) {
  std::vector<GridNode> nodes = {{{0.0}, {1.0}, 7}, {{2.0}, {2.0}, 8}};
  EXPECT_THROW(LogGrid(nodes, "t.csv", "copy_d2d bf16"), InputError);
}

TEST(LogGrid, OneDimensional) {
  const LogGrid grid({{{1e6}, {1e-5}, 1}, {{1e8}, {1e-3}, 2}}, "t.csv", "copy");
  EXPECT_NEAR(grid.interpolate({1e7})[0], 1e-4, 1e-18);  // log-log line of slope 1
}

}  // namespace
}  // namespace trainsim
