// A stage actor's ZeRO parameter gathers (sim/step/parameter_gathers.hpp): ZeRO-1/2's
// updated parameters after the optimizer or beside the first forward, and ZeRO-3's unit by
// unit before each unit computes.

#include <gtest/gtest.h>

#include <vector>

#include "sim/step/parameter_gathers.hpp"
#include "tests/step/stage_part_traffic.hpp"
#include "tests/step/stage_part_world.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using engine::CollectiveOp;
using testing::ComputeParts;
using testing::run_stage_part;
using testing::scenario;

// Two nodes of 8 GPUs, TP 8: a gradient group of two across the fabric.
const testing::Settings k_two_nodes{{"model.preset", "llama3-8b"}, {"model.layers", "4"},
                                    {"model.seq_len", "2048"},     {"parallel.tp", "8"},
                                    {"training.grad_accum", "4"},  {"cluster.nodes", "2"}};

// Runs `body` with a ParameterGathers of its own (and the parts it works through).
template <typename Body>
std::vector<double> with_gathers(const Scenario& s, Body body) {
  return run_stage_part(s, 0, [&](StageContext& context) {
    ComputeParts parts(context);
    GradientReduction reduction(context, parts.compute);
    ParameterGathers gathers(context, parts.compute, reduction);
    return body(context, parts.compute, gathers);
  });
}

TEST(ParameterGathers, ZeroOneGathersTheUpdatedParametersAfterTheUpdate) {
  const std::vector<double> out = with_gathers(
      scenario(k_two_nodes, {{"parallel.zero", "1"}}), [](StageContext& c, StageCompute&, ParameterGathers& g) {
        g.start_step();  // not overlapped: nothing before the forward
        const bool by_bucket = g.gathers_by_bucket();
        const double before = c.clock.now();
        g.gather_updated();
        return std::vector<double>{
            by_bucket ? 1.0 : 0.0,
            before,
            c.clock.now(),
            c.account().zero_comm,
            c.account().zero_bytes,
            bus_bytes(CollectiveOp::all_gather, c.costs.dense_weight_bytes + c.costs.expert_weight_bytes,
                      c.gradient_group_size(c.gather_scope()))};
      });
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0], 0.0);
  EXPECT_EQ(out[1], 0.0);
  EXPECT_GT(out[2], 0.0);
  EXPECT_DOUBLE_EQ(out[3], out[2]);  // the GPU waits for the whole gather: zero_comm
  EXPECT_GT(out[4], 0.0);
  EXPECT_DOUBLE_EQ(out[4], out[5]);
}

TEST(ParameterGathers, OverlappedTheFirstForwardWaitsForEachBucket) {
  const Scenario s =
      scenario(k_two_nodes,
               {{"parallel.zero", "1"}, {"parallel.overlap_param_gather", "true"}, {"training.dp_bucket", "100MB"}});
  const std::vector<double> out = with_gathers(s, [](StageContext& c, StageCompute& compute, ParameterGathers& g) {
    g.start_step();
    const bool by_bucket = g.gathers_by_bucket();
    const bool asked = g.awaited_start().has_value() || g.running() != nullptr;
    const PipelineTask t{0, 0, TaskPass::forward};
    compute.open_record("forward", t, WorkRate{});
    const double spent = g.compute_with_gathers("forward", t, 0.01, WorkRate{}, {});
    compute.close_record();
    g.finish_forward();
    const double zero_comm = c.account().zero_comm;
    g.gather_updated();  // overlapped: nothing after the update
    return std::vector<double>{by_bucket ? 1.0 : 0.0,
                               asked ? 1.0 : 0.0,
                               spent,
                               zero_comm,
                               c.account().zero_comm,
                               g.running() == nullptr ? 1.0 : 0.0,
                               g.gathers_by_bucket() ? 1.0 : 0.0};
  });
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(out[0], 1.0);
  EXPECT_EQ(out[1], 1.0);  // the first bucket's gather asked for at the step's start
  EXPECT_GE(out[2], 0.01);
  EXPECT_GT(out[3], 0.0);
  EXPECT_EQ(out[4], out[3]);
  EXPECT_EQ(out[5], 1.0);
  EXPECT_EQ(out[6], 0.0);  // the shares are the first forward's only
}

TEST(ParameterGathers, ZeroThreeGathersEachUnitBeforeItComputes) {
  const Scenario s = scenario(k_two_nodes, {{"parallel.zero", "3"}});
  const std::vector<double> out = with_gathers(s, [](StageContext& c, StageCompute&, ParameterGathers& g) {
    const PipelineTask t{0, 0, TaskPass::forward};
    const double spent = g.compute_by_units("forward", t, 0.02, false, WorkRate{}, true);
    const int units = c.costs.zero3_units[0];
    const double unit_bus =
        bus_bytes(CollectiveOp::all_gather, c.costs.zero3_unit_bytes, c.gradient_group_size(c.gather_scope())) +
        bus_bytes(CollectiveOp::all_gather, c.costs.zero3_unit_expert_bytes,
                  c.gradient_group_size(c.gather_scope(), true));
    return std::vector<double>{spent,
                               static_cast<double>(units),
                               c.account().zero_bytes,
                               unit_bus,
                               c.account().zero_comm,
                               c.clock.now(),
                               g.first_unit_running() == nullptr ? 1.0 : 0.0};
  });
  ASSERT_EQ(out.size(), 7u);
  EXPECT_GE(out[1], 1.0);
  EXPECT_NEAR(out[0], 0.02, 1e-9 + 0.02 * s.training.overlap_slowdown);  // slowed beside the next unit's gather
  EXPECT_NEAR(out[2], out[1] * out[3], 1e-6 * out[2]);                   // every unit gathered once
  EXPECT_GT(out[4], 0.0);  // the first unit's gather, at least, is waited for
  EXPECT_NEAR(out[5], out[0] + out[4], 1e-9);
  EXPECT_EQ(out[6], 1.0);
}

}  // namespace
}  // namespace trainsim
