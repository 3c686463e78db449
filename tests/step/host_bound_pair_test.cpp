// A forward-backward pair of MoE layers at the host's pace (sim/step/host_bound_pair.hpp):
// the dropless forward's sync waits for its attention and permutation, with the backward's
// experts still queued; the rest of the pair's layer is issued from there.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/step/host_bound_pair.hpp"
#include "tests/step/host_test_ops.hpp"

namespace trainsim {
namespace {

using namespace testing;  // GivenTimes, op, k_us, k_host

// Forward: attention 1 ms, the permutation (the sync), 10 expert kernels of 1 us, the
// unpermutation. Backward: the unpermutation's gradient, experts of `experts_bwd_s`, attention 1 ms.
std::vector<Op> forward(bool sync = true) {
  return {op("attention", 1000 * k_us, 1), op("moe.permute", 1 * k_us, 1, sync), op("experts.up", 10 * k_us, 10),
          op("moe.unpermute", 1 * k_us, 1)};
}
std::vector<Op> backward(double experts_bwd_s) {
  return {op("moe.unpermute.bwd", 1 * k_us, 1), op("experts.up.bwd", experts_bwd_s, 1),
          op("attention.bwd", 1000 * k_us, 1)};
}

TEST(HostBoundPair, TheBackwardsExpertsHideTheLaunchesAfterTheSync) {
  const GivenTimes gpu;
  // After the sync the GPU has the backward's 2 ms of experts queued; the host launches the
  // forward's 10 expert kernels, its unpermutation and the backward's attention in 360 us.
  EXPECT_DOUBLE_EQ(paired_host_excess_s(forward(), backward(2000 * k_us), gpu, 1.0, k_host, false), 0.0);
}

TEST(HostBoundPair, ShortBackwardExpertsLeaveTheGpuWaitingForTheHost) {
  const GivenTimes gpu;
  // With 10 us of backward experts queued at the sync, the forward's expert kernels run as
  // launched (30 us apart), the backward's attention starts at its launch, 360 us after the
  // sync, and the next sync comes 2,362 us after this one, against 2,023 us of GPU work.
  EXPECT_NEAR(paired_host_excess_s(forward(), backward(10 * k_us), gpu, 1.0, k_host, false), 339 * k_us, 1e-12);
  // No sync (static expert shapes), or no host time: nothing.
  EXPECT_DOUBLE_EQ(paired_host_excess_s(forward(false), backward(10 * k_us), gpu, 1.0, k_host, false), 0.0);
  EXPECT_DOUBLE_EQ(paired_host_excess_s(forward(), backward(10 * k_us), gpu, 1.0, HostLaunchCost{}, false), 0.0);
}

}  // namespace
}  // namespace trainsim
