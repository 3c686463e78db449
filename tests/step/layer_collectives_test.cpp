// A stage actor's layer collectives (sim/step/layer_collectives.hpp): the slots a pass plays
// them in, and a TP collective run, accounted and cached.

#include <gtest/gtest.h>

#include <vector>

#include "sim/step/layer_collectives.hpp"
#include "tests/step/stage_part_traffic.hpp"
#include "tests/step/stage_part_world.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using engine::CollectiveOp;
using testing::NoTraffic;
using testing::run_stage_part;
using testing::scenario;

GroupCollective collective(CommGroup group, int count, int layers) {
  GroupCollective c;
  c.group = group;
  c.count = count;
  c.layers = layers;
  c.bytes = 1 << 20;
  return c;
}

TEST(LayerCollectives, SlotsGoLayerByLayerSpreadOverTheCompute) {
  PassCost pass;
  pass.compute_s = 1.2;
  pass.overlapped_s = 0.2;
  // Two TP all-reduces a layer over 2 layers, one EP all-to-all a layer, one once per pass.
  pass.collectives = {collective(CommGroup::tp, 4, 2), collective(CommGroup::ep, 2, 2),
                      collective(CommGroup::tp, 1, 0)};
  const PipelineTask t{0, 0, TaskPass::forward};
  const auto slots = layer_slots(pass, t, true);
  ASSERT_TRUE(slots);
  const GroupCollective* tp = &pass.collectives[0];
  const GroupCollective* ep = &pass.collectives[1];
  // Per layer and round: the TP collective, then the EP one while it has rounds left.
  EXPECT_EQ(slots->sequence, (std::vector<const GroupCollective*>{tp, ep, tp, tp, ep, tp}));
  EXPECT_DOUBLE_EQ(slots->slot_s, 1.0 / 6);  // the compute not beside overlapped collectives
  EXPECT_DOUBLE_EQ(slots->until_next, slots->slot_s);
  EXPECT_EQ(slots->task, &t);
  // Without the EP ones (a pair plays those on its own stream).
  EXPECT_EQ(layer_slots(pass, t, false)->sequence, (std::vector<const GroupCollective*>{tp, tp, tp, tp}));
  // Once-per-pass collectives only: no slots.
  pass.collectives = {collective(CommGroup::tp, 1, 0)};
  EXPECT_FALSE(layer_slots(pass, t, true));
}

TEST(LayerCollectives, RunAccountsATpCollectiveAndReusesItsDuration) {
  const Scenario s = scenario(testing::tp4_node());
  const std::vector<double> out = run_stage_part(s, 0, [](StageContext& context) {
    NoTraffic traffic;
    LayerCollectives layers(context, traffic);
    const PipelineTask t{0, 0, TaskPass::forward};
    GroupCollective c = collective(CommGroup::tp, 1, 0);
    c.bytes = 64 << 20;
    const double computed = layers.run(c, 1, t);
    const double first = context.account().tp_comm;
    const double start = context.clock.now();
    layers.run(c, 1, t);  // symmetry reduced: the duration measured first, slept
    const double second = context.clock.now() - start;
    return std::vector<double>{computed, first, second, context.account().tp_bytes,
                               static_cast<double>(context.w.duration_cache.size())};
  });
  ASSERT_EQ(out.size(), 5u);
  EXPECT_DOUBLE_EQ(out[0], 0.0);  // a blocking collective runs no compute beside it
  EXPECT_GT(out[1], 0.0);
  EXPECT_DOUBLE_EQ(out[2], out[1]);
  // Bus bytes of a 4-rank all-reduce: 2 (n - 1) / n of its bytes, twice.
  EXPECT_DOUBLE_EQ(out[3], 2 * (64 << 20) * 2.0 * 3 / 4);
  EXPECT_EQ(out[4], 1.0);
}

TEST(LayerCollectives, OverlappedGemmRunsBesideTheCollective) {
  const Scenario s = scenario(testing::tp4_node());
  const std::vector<double> out = run_stage_part(s, 0, [](StageContext& context) {
    NoTraffic traffic;
    LayerCollectives layers(context, traffic);
    const PipelineTask t{0, 0, TaskPass::forward};
    GroupCollective c = collective(CommGroup::tp, 1, 0);
    c.bytes = 1 << 10;  // far shorter than the GEMM beside it
    c.overlap_s = 0.01;
    c.beside_s = 0.012;  // the GEMM beside it, slower by the SMs its userbuffers kernels take
    const double computed = layers.run(c, 1, t);
    return std::vector<double>{computed, context.account().tp_comm};
  });
  ASSERT_EQ(out.size(), 2u);
  // The GEMM's time beside the collective (GroupCollective::beside_s, tp_overlap_cost.hpp), not
  // its time alone, is compute; tp_comm none.
  EXPECT_DOUBLE_EQ(out[0], 0.012);
  EXPECT_NEAR(out[1], 0.0, 1e-12);
}

}  // namespace
}  // namespace trainsim
