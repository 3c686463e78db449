// What a stage actor's GPU waits for besides its kernels and collectives
// (sim/step/stage_waits.hpp): the data loader, the offload copies, the host's launches.

#include <gtest/gtest.h>

#include <vector>

#include "sim/step/stage_waits.hpp"
#include "tests/step/stage_part_traffic.hpp"
#include "tests/step/stage_part_world.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::ComputeParts;
using testing::run_stage_part;
using testing::scenario;

const testing::Settings k_node = testing::tp4_node();

TEST(StageWaits, OffloadCopiesTheComputeDidNotHide) {
  const std::vector<double> out = run_stage_part(scenario(k_node), 0, [](StageContext& context) {
    ComputeParts parts(context);
    StageWaits waits(context, parts.compute);
    PassCost pass;
    const PipelineTask t{0, 0, TaskPass::forward};
    waits.wait_offload(t, pass);  // nothing to copy
    const double none = context.clock.now();
    pass.offload_s = 0.004;
    waits.wait_offload(t, pass);
    return std::vector<double>{none, context.clock.now(), context.account().offload};
  });
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], 0.0);
  EXPECT_DOUBLE_EQ(out[1], 0.004);
  EXPECT_DOUBLE_EQ(out[2], 0.004);
}

TEST(StageWaits, BlockingCollectivesHideTheHostsLaunches) {
  const std::vector<double> out = run_stage_part(scenario(k_node), 0, [](StageContext& context) {
    ComputeParts parts(context);
    StageWaits waits(context, parts.compute);
    PassCost pass;
    pass.hideable_host_s = 0.003;
    const PipelineTask t{0, 0, TaskPass::forward};
    context.account().host_wait = 0.003;  // as the pass's FLOPs add it
    const double partly = waits.host_beside_collectives("forward", t, pass, 0.001);
    const double host_left = context.account().host_wait;
    const double wholly = waits.host_beside_collectives("forward", t, pass, 0.005);
    return std::vector<double>{partly, host_left, wholly, context.account().host_wait, context.clock.now()};
  });
  ASSERT_EQ(out.size(), 5u);
  EXPECT_DOUBLE_EQ(out[0], 0.002);  // what the 1 ms of collectives did not hide
  EXPECT_DOUBLE_EQ(out[1], 0.002);
  EXPECT_DOUBLE_EQ(out[2], 0.0);  // all of it hidden
  EXPECT_NEAR(out[3], -0.001, 1e-15);
  EXPECT_DOUBLE_EQ(out[4], 0.002);
}

TEST(StageWaits, ASlowLoaderKeepsTheFirstStageWaiting) {
  // 30 ms a sample, one sample a micro-batch, two kept ready: the third micro-batch is ready
  // 30 ms after the first was taken.
  const Scenario s = scenario(k_node, {{"training.sample_load_time", "30ms"},
                                       {"training.prefetch", "2"},
                                       {"training.micro_batch", "1"},
                                       {"training.grad_accum", "4"}});
  const std::vector<double> out = run_stage_part(s, 0, [](StageContext& context) {
    ComputeParts parts(context);
    StageWaits waits(context, parts.compute);
    std::vector<double> at;
    for (int mb = 0; mb < 3; ++mb) {
      waits.wait_data(PipelineTask{mb, 0, TaskPass::forward});
      at.push_back(context.clock.now());
    }
    at.push_back(context.account().data);
    return at;
  });
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0], 0.0);  // the buffer starts full
  EXPECT_EQ(out[1], 0.0);
  EXPECT_NEAR(out[2], 0.03, 1e-12);
  EXPECT_NEAR(out[3], 0.03, 1e-12);
}

}  // namespace
}  // namespace trainsim
