// The step with its gradient-group plans reduced together (step/gradient_plans.hpp) against
// every leg: the same step, breakdown and activity records, to the bit, on fabrics and
// parallel layouts whose gradient rings and trees leave legs out; and the reduction does
// leave legs out there. Each simulation runs in a forked child (one SimGrid engine per process).

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/compute/roofline_compute_model.hpp"
#include "sim/engine/platform.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/schedule/pipeline_schedule.hpp"
#include "sim/step/gradient_plans.hpp"
#include "sim/step/simulated_scope.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_simulation.hpp"
#include "tests/step/gradient_legs_share.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::left_out_share;
using testing::scenario;
using testing::Settings;

void expect_reduced_equals_every_leg(const Scenario& s, const std::string& what) {
  testing::expect_same_with_and_without(s, &StepOptions::reduce_gradient_legs, what);
}

// 64 nodes of 8 GPUs, 32 a leaf: TP 8 inside a node, 4 pipeline stages, 16 replicas, so each
// stage's gradient ring has legs inside leaves and between them.
const Settings k_base{{"model.preset", "llama3-8b"}, {"model.layers", "8"},
                      {"model.seq_len", "2048"},     {"training.grad_accum", "4"},
                      {"parallel.tp", "8"},          {"parallel.pp", "4"},
                      {"parallel.zero", "1"},        {"parallel.overlap_param_gather", "true"},
                      {"cluster.nodes", "64"},       {"cluster.fabric", "rail-optimized"}};

TEST(GradientLegs, StepEqualsEveryLegOnEveryLayout) {
  for (const testing::NamedScenario& layout : testing::network_layouts(k_base, 32))
    expect_reduced_equals_every_leg(layout.scenario, layout.what);
}

TEST(GradientLegs, StepEqualsEveryLegForEveryGradientCollective) {
  expect_reduced_equals_every_leg(scenario(k_base, {{"parallel.zero", "0"}}), "all-reduce");
  expect_reduced_equals_every_leg(scenario(k_base, {{"parallel.overlap_grad_reduce", "false"}}), "not overlapped");
  expect_reduced_equals_every_leg(scenario(k_base, {{"parallel.overlap_param_gather", "false"}}),
                                  "parameters gathered after the update");
  expect_reduced_equals_every_leg(scenario(k_base, {{"parallel.zero", "3"}}), "zero-3");
}

// Llama 3 405B on 16,384 H100 (trainsim-bench-step's first size): 16 stages' rings of 128
// nodes, interleaved, ZeRO-1.
TEST(GradientLegs, LlamaStepOn16384GpusEqualsEveryLeg) {
  const Scenario s = load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/examples/llama3-405b-16k-h100.ini");
  expect_reduced_equals_every_leg(s, "llama3-405b-16k-h100");
  EXPECT_GT(left_out_share(s), 0.9);
}

// With few layers, stage_split = even-with-ends leaves the first and the last stage without
// a transformer layer (the embedding, the output layer): their gradients are still reduced,
// in equal parts per chunk (the bucket sizes were 0 / 0 = NaN: no reduction, and NaN bytes
// per GPU in the results).
TEST(GradientLegs, StagesWithoutLayersReduceTheirGradients) {
  const Scenario s = scenario(k_base, {{"model.layers", "2"}, {"parallel.stage_split", "even-with-ends"}});
  const std::vector<double> out = testing::step_outputs(s, StepOptions{});
  for (size_t i = 0; i < out.size(); ++i) EXPECT_TRUE(std::isfinite(out[i])) << "output " << i;
  EXPECT_GT(out.at(18), 0);  // data-parallel bytes per GPU (step_outputs' order)
  expect_reduced_equals_every_leg(s, "stages without layers");
}

// A plan the step did not list cannot run beside the listed ones with every leg (their left-out
// links would miss its load): finding it is a logic error, not a silent inexact run.
TEST(GradientLegs, AnUnlistedPlanIsALogicError) {
  const Scenario s = scenario(k_base);
  const RankMapping mapping(s.parallel, s.cluster);
  const engine::Platform planning = engine::Platform::without_simgrid(s.cluster);
  const GradientPlanKey listed{0, engine::CollectiveOp::reduce_scatter, 1e6, 0, GradientScope::whole, false};
  const GradientPlans plans(planning, {listed}, {mapping, s.parallel, true},
                            std::vector<bool>(static_cast<size_t>(planning.routes().link_count()), false), nullptr);
  EXPECT_NE(plans.find(listed), nullptr);
  GradientPlanKey other = listed;
  other.dense_bytes = 2e6;
  EXPECT_THROW(plans.find(other), std::logic_error);
  EXPECT_EQ(GradientPlans().find(other), nullptr);  // none prepared: the caller runs every leg
}

TEST(GradientLegs, LeavesOutMostOfTheRingsLegs) {
  EXPECT_GT(left_out_share(scenario(k_base)), 0.5);
  EXPECT_GT(left_out_share(scenario(k_base, {{"cluster.fabric", "fat-tree"}})), 0.5);
}

}  // namespace
}  // namespace trainsim
