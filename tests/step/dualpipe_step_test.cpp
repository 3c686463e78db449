// DualPipe on the engine (parallel.schedule = dualpipe): on equal stages the step's bubble is
// DeepSeek-V3 Table 2's against 1F1B's on the same scenario, parameters are held twice over,
// the reduced simulation equals --full, and the step is the same run after run.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "models/memory_budget.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_bound.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

// Llama 3 8B cut to 16 layers on one node of 4 GPUs, PP 4, no TP or DP: equal stages (an
// even split; a vocabulary of 1,024 leaves the embedding and output layer next to nothing),
// so the step is the schedule and its passes; the host at the A100 trace's costs
// (training.host_stack_factor 1), whose launches these short kernels outlast.
const Settings k_equal_stages{{"training.host_stack_factor", "1"},
                              {"model.preset", "llama3-8b"},
                              {"model.layers", "16"},
                              {"model.vocab", "1024"},
                              {"model.seq_len", "2048"},
                              {"training.grad_accum", "8"},
                              {"parallel.tp", "1"},
                              {"parallel.pp", "4"},
                              {"parallel.stage_split", "even"},
                              {"cluster.gpus_per_node", "4"},
                              {"cluster.nodes", "1"}};

// Step time, idle (the bubble, per GPU), forward + backward + recompute, pp_comm, optimizer.
std::vector<double> step_of(const Scenario& s, bool reduce = true) {
  return testing::simulated_fields(s, reduce, [](const StepResult& r) {
    const StepBreakdown& b = r.breakdown_s;
    return std::vector<double>{r.step_time_s, b.idle, b.forward + b.backward + b.recompute, b.pp_comm, b.optimizer};
  });
}

TEST(DualPipeStep, BubbleIsTableTwosAgainstOneFOneBs) {
  const Scenario one = scenario(k_equal_stages, {{"parallel.schedule", "1f1b"}});
  const Scenario dual = scenario(k_equal_stages, {{"parallel.schedule", "dualpipe"}});
  // A middle stage's passes, the backward split as DualPipe's costs split it.
  const RooflineComputeModel compute(datasheet_roofline(dual.cluster.gpu, dual.training.precision));
  const StepCosts costs = build_step_costs(dual, compute, true);
  const ChunkCosts& c = costs.stages[1].chunks[0];
  const double f = c.forward.compute_s, w = c.weight.compute_s, b = c.backward.compute_s + w;
  ASSERT_GT(w, 0);
  const int pp = 4;
  const std::vector<double> a = step_of(one);
  const std::vector<double> d = step_of(dual);
  // The same work on every GPU.
  EXPECT_NEAR(d[2], a[2], 1e-6 * a[2]);
  // Table 2: 1F1B (PP - 1)(F + B); DualPipe (PP/2 - 1)(F&B + B - 3W), here F&B = F + B (no
  // all-to-all to overlap). Within 2 % of 1F1B's bubble: the pipeline transfers and the ends'
  // embedding and output layer are not in the formula.
  const double one_bubble = (pp - 1) * (f + b);
  const double dual_bubble = (pp / 2 - 1) * (f + b + b - 3 * w);
  EXPECT_NEAR(a[1], one_bubble, 0.02 * one_bubble);
  EXPECT_NEAR(d[1], dual_bubble, 0.02 * one_bubble);
  // The step saves that, less the optimizer's second copy of the parameters.
  EXPECT_NEAR((a[0] - a[4]) - (d[0] - d[4]), one_bubble - dual_bubble, 0.02 * one_bubble);
  EXPECT_NEAR(d[4], 2 * a[4], 2e-3 * a[4]);  // its fixed costs stay one
  std::printf("F %.3f B %.3f W %.3f ms; 1F1B idle %.3f (table %.3f), DualPipe idle %.3f (table %.3f) ms\n", f * 1e3,
              b * 1e3, w * 1e3, a[1] * 1e3, one_bubble * 1e3, d[1] * 1e3, dual_bubble * 1e3);
}

TEST(DualPipeStep, HoldsParametersTwiceAndPpPlusOneChunksOfActivations) {
  const Scenario one = scenario(k_equal_stages, {{"parallel.schedule", "1f1b"}});
  const Scenario dual = scenario(k_equal_stages, {{"parallel.schedule", "dualpipe"}});
  const MemoryReport a = estimate_memory(one.model, one.training, one.parallel, 80e9);
  const MemoryReport d = estimate_memory(dual.model, dual.training, dual.parallel, 80e9);
  ASSERT_EQ(a.stages.size(), 4U);
  double sum_a = 0, sum_d = 0;
  for (size_t s = 0; s < 4; ++s) {
    // Rank s holds stage s and stage 3 - s (DeepSeek-V3 Table 2: 2x parameters).
    EXPECT_DOUBLE_EQ(d.stages[s].parameters_per_gpu,
                     a.stages[s].parameters_per_gpu + a.stages[3 - s].parameters_per_gpu);
    EXPECT_EQ(d.stages[s].layers, 8);
    EXPECT_DOUBLE_EQ(d.stages[s].inflight_microbatches, 2.5);  // PP + 1 = 5 chunks of 2
    sum_a += a.stages[s].parameters_per_gpu;
    sum_d += d.stages[s].parameters_per_gpu;
  }
  EXPECT_NEAR(sum_d, 2 * sum_a, 1e-12 * sum_d);
  // Weights, gradients and optimizer states twice 1F1B's on a middle rank.
  EXPECT_NEAR(d.stages[1].bytes.weights, a.stages[1].bytes.weights + a.stages[2].bytes.weights, 1.0);
}

TEST(DualPipeStep, ReducedEqualsFullAndRunsAlike) {
  // Two replicas over two nodes: gradient reductions per chunk at each direction's last
  // micro-batch, pipeline transfers in both directions.
  const Scenario s = scenario(k_equal_stages, {{"parallel.schedule", "dualpipe"},
                                               {"cluster.nodes", "2"},
                                               {"parallel.overlap_grad_reduce", "true"},
                                               {"parallel.zero", "1"}});
  const std::vector<double> reduced = step_of(s, true);
  ASSERT_GT(reduced[0], 0);
  EXPECT_EQ(reduced, step_of(s, true));  // bit for bit, run after run
  const std::vector<double> full = step_of(s, false);
  for (size_t i = 0; i < reduced.size(); ++i) EXPECT_NEAR(full[i], reduced[i], 1e-9 * reduced[0]) << "field " << i;
  StepOptions options;
  EXPECT_EQ(testing::step_outputs(s, options), testing::step_outputs(s, options));
}

TEST(DualPipeStep, PairsHideTheAllToAllsBehindTheOtherDirection) {
  // Qwen3 30B-A3B cut to 4 layers, EP 8 over two nodes, PP 2, 8 micro-batches: DualPipe's
  // forward-backward pairs run each one's all-to-alls beside the other's compute, with or
  // without moe_a2a_overlap set (DeepSeek-V3 §3.2.1: the overlap is DualPipe's own).
  const Settings moe{{"model.preset", "qwen3-30b-a3b"},
                     {"model.layers", "4"},
                     {"model.seq_len", "2048"},
                     {"training.grad_accum", "8"},
                     {"parallel.ep", "8"},
                     {"parallel.pp", "2"},
                     {"parallel.overlap_grad_reduce", "false"},
                     {"cluster.nodes", "2"},
                     {"training.host_stack_factor", "1"}};  // the A100 trace's host costs
  const Scenario one = scenario(moe, {{"parallel.schedule", "1f1b"}});
  const Scenario dual = scenario(moe, {{"parallel.schedule", "dualpipe"}});
  const auto fields = [](const Scenario& s, bool reduce) {
    return testing::simulated_fields(s, reduce, [&](const StepResult& r) {
      const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
      return std::vector<double>{r.step_time_s, r.breakdown_s.ep_comm, r.breakdown_s.idle,
                                 step_time_lower_bound_s(s, compute)};
    });
  };
  const std::vector<double> a = fields(one, true);
  const std::vector<double> d = fields(dual, true);
  ASSERT_GT(a[1], 0);
  EXPECT_LT(d[1], 0.8 * a[1]);  // exposed all-to-all time
  EXPECT_LT(d[2], 0.1 * a[2]);  // the bubble
  EXPECT_LE(d[3], d[0]);        // the lower bound
  EXPECT_EQ(fields(scenario(moe, {{"parallel.schedule", "dualpipe"}, {"parallel.moe_a2a_overlap", "true"}}), true), d);
  const std::vector<double> full = fields(dual, false);
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(full[i], d[i], 1e-9 * d[0]) << "field " << i;
}

}  // namespace
}  // namespace trainsim
