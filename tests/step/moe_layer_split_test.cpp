// The kernel in progress a pair's collective waits for (sim/step/moe_layer_split.hpp,
// kernel_in_progress_s): the mean residual of a renewal process of the kernels' durations.

#include <gtest/gtest.h>

#include <vector>

#include "sim/step/moe_layer_split.hpp"
#include "tests/step/host_test_ops.hpp"

namespace trainsim {
namespace {

using testing::k_us;
using testing::op;

TEST(KernelInProgress, IsTheMeanRestOfTheKernelAtAMomentSpreadOverTheirTime) {
  const testing::GivenTimes compute;
  // One kernel of 100 us: half of it on average.
  EXPECT_NEAR(kernel_in_progress_s({op("a", 100 * k_us, 1)}, compute, 1.0), 50 * k_us, 1e-15);
  // The same 100 us in 4 kernels of 25: 12.5 us.
  EXPECT_NEAR(kernel_in_progress_s({op("a", 100 * k_us, 4)}, compute, 1.0), 12.5 * k_us, 1e-15);
  // 300 us and 100 us: a moment falls in the long one 3 times in 4, (300^2 + 100^2) / (2 x 400).
  EXPECT_NEAR(kernel_in_progress_s({op("a", 300 * k_us, 1), op("b", 100 * k_us, 1)}, compute, 1.0), 125 * k_us, 1e-15);
  EXPECT_EQ(kernel_in_progress_s({}, compute, 1.0), 0.0);
}

}  // namespace
}  // namespace trainsim
