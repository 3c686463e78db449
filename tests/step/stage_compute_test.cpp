// A stage actor's compute (sim/step/stage_compute.hpp): its slowdowns, its records, and the
// layer collectives played where their slots fall in it.

#include <gtest/gtest.h>

#include <vector>

#include "sim/engine/collective.hpp"
#include "sim/step/stage_compute.hpp"
#include "tests/step/stage_part_traffic.hpp"
#include "tests/step/stage_part_world.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::ComputeParts;
using testing::run_stage_part;
using testing::scenario;

const testing::Settings k_node = testing::tp4_node();

TEST(StageCompute, AloneItTakesItsSecondsAndReportsOneRecord) {
  testing::KeptRecords records;
  StepOptions options;
  options.observer = &records;
  const std::vector<double> out = run_stage_part(
      scenario(k_node), 0,
      [&](StageContext& context) {
        ComputeParts parts(context);
        const PipelineTask t{1, 0, TaskPass::forward};
        parts.compute.open_record("forward", t, WorkRate{2e12, 3e9});
        const double spent = parts.compute.compute(0.25);
        parts.compute.close_record();
        return std::vector<double>{spent, context.clock.now(), static_cast<double>(records.records.size()),
                                   records.records.empty() ? 0.0 : records.records[0].flops,
                                   records.records.empty() ? 0.0 : records.records[0].hbm_bytes};
      },
      options);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_DOUBLE_EQ(out[0], 0.25);
  EXPECT_DOUBLE_EQ(out[1], 0.25);
  EXPECT_EQ(out[2], 1.0);
  EXPECT_DOUBLE_EQ(out[3], 2e12 * 0.25);  // the record's rate x its seconds
  EXPECT_DOUBLE_EQ(out[4], 3e9 * 0.25);
}

TEST(StageCompute, BesideACollectiveItRunsSlower) {
  const Scenario s = scenario(k_node, {{"training.overlap_slowdown", "0.5"}});
  const std::vector<double> out = run_stage_part(s, 0, [](StageContext& context) {
    ComputeParts parts(context);
    engine::CollectiveCall call;
    call.op = engine::CollectiveOp::all_reduce;
    call.gpus = {0, 1, 2, 3};
    call.bytes = 4e9;  // longer than the compute beside it
    const engine::CommActivity beside = engine::start_collective(context.w.platform, call);
    parts.compute.add_beside(beside);
    const double spent = parts.compute.compute(1e-3);
    parts.compute.clear_beside();
    beside.wait();
    return std::vector<double>{spent, beside.duration_s()};
  });
  ASSERT_EQ(out.size(), 2u);
  ASSERT_GT(out[1], 2e-3);
  EXPECT_NEAR(out[0], 1.5e-3, 1e-9);  // all of it beside the all-reduce: 1 + overlap_slowdown
}

TEST(StageCompute, LayerSlotsPlayInsideTheCompute) {
  const std::vector<double> out = run_stage_part(scenario(k_node), 0, [](StageContext& context) {
    ComputeParts parts(context);
    PassCost pass;
    pass.compute_s = 0.02;
    GroupCollective tp;
    tp.bytes = 16 << 20;
    tp.count = 4;
    tp.layers = 2;
    pass.collectives = {tp};
    const PipelineTask t{0, 0, TaskPass::forward};
    parts.compute.start_layer_slots(pass, t);
    const double half = parts.compute.compute(0.01);  // the first two slots fall in it
    const double after_half = context.account().tp_comm;
    const bool pending = parts.compute.slot_pending();
    const double rest = parts.compute.compute(0.01);
    const double finished = parts.compute.finish_layer_slots(pass, t);
    return std::vector<double>{
        half, after_half, pending ? 1.0 : 0.0, rest, finished, context.account().tp_comm, context.clock.now()};
  });
  ASSERT_EQ(out.size(), 7u);
  EXPECT_DOUBLE_EQ(out[0], 0.01);  // blocking collectives: none of their time is compute
  EXPECT_GT(out[1], 0.0);
  EXPECT_EQ(out[2], 1.0);
  EXPECT_DOUBLE_EQ(out[3], 0.01);
  EXPECT_DOUBLE_EQ(out[4], 0.0);             // the last slot at the compute's end
  EXPECT_NEAR(out[5], 2 * out[1], 1e-9);     // four slots, the same collective each time
  EXPECT_NEAR(out[6], 0.02 + out[5], 1e-9);  // compute and collectives one after the other
}

}  // namespace
}  // namespace trainsim
