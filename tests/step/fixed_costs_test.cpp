// The costs of a step that do not shrink with the work per GPU (issue 56 item 4,
// sim/step/fixed_costs.hpp): current scaling's amax all-reduces over the TP group, the
// gradient norm's all-reduce over every rank, and the GPU's wait for the host's dispatches
// after the norm's host sync; each reported by name, each a part of its breakdown category,
// and the reduced step still equal to --full.

#include <gtest/gtest.h>

#include <vector>

#include "sim/compute/roofline_compute_model.hpp"
#include "sim/core/error.hpp"
#include "sim/step/fixed_costs.hpp"
#include "sim/step/stage_costs.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;

// Llama 3 8B cut to 4 layers on one GB200 tray's worth of an NVL72 rack: TP 2 with sequence
// parallelism, FP8, the distributed optimizer (public.md A4's 512-GPU layout, shrunk).
const testing::Settings k_tp = testing::small_gb200_llama3_8b();

// The amax all-reduces of each pass of stage 0's chunk: {forward, backward} counts.
std::vector<int> amax_counts(const Scenario& s) {
  const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
  const StepCosts costs = build_step_costs(s, compute, false);
  std::vector<int> counts;
  for (const PassCost* pass : {&costs.stages[0].chunks[0].forward, &costs.stages[0].chunks[0].backward}) {
    int n = 0;
    for (const GroupCollective& c : pass->collectives)
      if (c.amax) {
        EXPECT_EQ(c.group, CommGroup::tp);
        EXPECT_EQ(c.op, engine::CollectiveOp::all_reduce);
        EXPECT_DOUBLE_EQ(c.bytes, 4.0);  // one fp32
        n += c.count;
      }
    counts.push_back(n);
  }
  return counts;
}

TEST(FixedCosts, CurrentScalingReducesTwoAmaxesPerLayerAndPassOverTheTpGroup) {
  // The attention's and the MLP's sequence-parallel casts, 4 layers.
  EXPECT_EQ(amax_counts(scenario(k_tp)), (std::vector<int>{8, 8}));
  EXPECT_EQ(amax_counts(scenario(k_tp, {{"training.precision", "nvfp4"}})), (std::vector<int>{8, 8}));
  // Delayed scaling reads the amax history; mxfp8's block scales need no tensor amax; without
  // sequence parallelism or TP each rank casts the whole tensor itself.
  EXPECT_EQ(amax_counts(scenario(k_tp, {{"training.fp8_scaling", "delayed"}})), (std::vector<int>{0, 0}));
  EXPECT_EQ(amax_counts(scenario(k_tp, {{"training.precision", "mxfp8"}})), (std::vector<int>{0, 0}));
  EXPECT_EQ(amax_counts(scenario(k_tp, {{"parallel.sequence_parallel", "false"}})), (std::vector<int>{0, 0}));
  EXPECT_EQ(amax_counts(scenario(k_tp, {{"training.precision", "bf16"}})), (std::vector<int>{0, 0}));
}

TEST(FixedCosts, DelayedIsARecipeOfFp8Only) {
  EXPECT_THROW(scenario(k_tp, {{"training.precision", "bf16"}, {"training.fp8_scaling", "delayed"}}), InputError);
  EXPECT_THROW(scenario(k_tp, {{"training.fp8_scaling", "jit"}}), InputError);
}

TEST(FixedCosts, TheNormsAllReduceGrowsWithRanksAndNvlinkDomains) {
  EXPECT_EQ(grad_norm_allreduce_s(1, 1, 50e9), 0.0);
  const double one_rack = grad_norm_allreduce_s(72, 1, 900e9);
  const double eight_racks = grad_norm_allreduce_s(512, 8, 50e9);
  EXPECT_GT(one_rack, 0.0);
  EXPECT_GT(eight_racks, one_rack);
  // Latency, not bandwidth: tens of microseconds (NCCL's model, tuning.cc), not milliseconds.
  EXPECT_LT(eight_racks, 200e-6);
  EXPECT_GT(eight_racks, 10e-6);
}

TEST(FixedCosts, TheHostDispatchesAdamTheShardsCopiesTheGathersAndTheNextStep) {
  const Scenario s = scenario(k_tp);  // DP 4: 4 shards
  // 2 Adam launches, the shard's copies (27 tensors of 4 layers over 4 shards, 7, and one
  // the shard starts inside), the buffers' reset, the next step; the gathers left to the
  // next forward's pre-hooks.
  EXPECT_EQ(host_ops_after_norm(s, 4, 3), 2 + 8 + 1 + 1);
  // Gathered in the step: one launch per bucket.
  EXPECT_EQ(host_ops_after_norm(scenario(k_tp, {{"parallel.overlap_param_gather", "false"}}), 4, 3), 2 + 8 + 3 + 1 + 1);
  // No distributed optimizer: every tensor's copy, no gathers.
  EXPECT_EQ(host_ops_after_norm(scenario(k_tp, {{"parallel.zero", "0"}, {"parallel.overlap_param_gather", "false"}}), 4, 3),
            2 + 27 + 1 + 1);
  // ZeRO 3 / FSDP gathers each unit's parameters before its forward (parameter_gathers.cpp),
  // not after the norm: no gather launches here, blocking or not.
  EXPECT_EQ(host_ops_after_norm(scenario(k_tp, {{"parallel.zero", "3"}, {"parallel.overlap_param_gather", "false"}}), 4, 3),
            2 + 8 + 1 + 1);
  // A full-iteration graph: before its replay each micro-batch's four tensors are copied into
  // its static buffers (megatron/core/full_cuda_graph.py StaticBufferLoader).
  EXPECT_EQ(host_ops_after_norm(scenario(k_tp, {{"training.cuda_graphs", "full_iteration"}}), 4, 3),
            2 + 8 + 1 + 4 + 1);
  EXPECT_EQ(host_ops_after_norm(
                scenario(k_tp, {{"training.cuda_graphs", "full_iteration"}, {"training.grad_accum", "3"}}), 4, 3),
            2 + 8 + 1 + 3 * 4 + 1);
  EXPECT_EQ(gradient_buckets(s, 250e6), 3);  // 100 MB buckets, the last a remainder
  EXPECT_EQ(gradient_buckets(s, 0), 1);
}

// Per GPU: the step, tp_comm, optimizer, then the three parts.
std::vector<double> fields(const StepResult& r) {
  return {r.step_time_s,
          r.breakdown_s.tp_comm,
          r.breakdown_s.optimizer,
          r.fixed_costs_s.amax_reductions,
          r.fixed_costs_s.grad_norm_allreduce,
          r.fixed_costs_s.host_after_norm};
}

TEST(FixedCosts, EachIsReportedByNameAsAPartOfItsCategory) {
  // 8 trays, DP 16: a shard whose optimizer kernels are shorter than the host's dispatches.
  const testing::Settings wide = testing::merged(k_tp, {{"cluster.nodes", "8"}});
  const std::vector<double> r = testing::simulated_fields(scenario(wide), true, fields);
  ASSERT_EQ(r.size(), 6u);
  EXPECT_GT(r[3], 0.0);
  EXPECT_LE(r[3], r[1]);  // amax all-reduces of tp_comm
  EXPECT_GT(r[4], 0.0);
  EXPECT_GT(r[5], 0.0);
  EXPECT_LE(r[4] + r[5], r[2]);  // the norm's all-reduce and the host's wait of optimizer
  // Grace dispatches 2.75x slower than x86 (topologies/host_cost.hpp): the GPU waits longer
  // on the GB200 than on the same shape under DGX-H100-like x86 hosts' costs.
  const std::vector<double> x86 = testing::simulated_fields(
      scenario(wide, {{"training.kernel_host_time", "30us"}}), true, fields);
  EXPECT_GT(r[5], x86[5]);
  // Delayed scaling: no amax all-reduces, less tp_comm, and no amax pass before each cast
  // (models/cast_ops.hpp), so a shorter step.
  const std::vector<double> delayed =
      testing::simulated_fields(scenario(wide, {{"training.fp8_scaling", "delayed"}}), true, fields);
  EXPECT_EQ(delayed[3], 0.0);
  EXPECT_LT(delayed[1], r[1]);
  EXPECT_LT(delayed[0], r[0]);
}

// Symmetry (DESIGN.md): the fixed costs are the same for every replica, so the reduced step
// equals --full (the 8 GPUs of two trays, DP 4).
TEST(FixedCosts, ReducedEqualsFull) {
  const Scenario s = scenario(k_tp);
  const std::vector<double> reduced = testing::simulated_fields(s, true, fields);
  const std::vector<double> full = testing::simulated_fields(s, false, fields);
  ASSERT_EQ(reduced.size(), full.size());
  for (size_t i = 0; i < reduced.size(); ++i) EXPECT_NEAR(reduced[i], full[i], 1e-6 * reduced[0]) << "field " << i;
}

}  // namespace
}  // namespace trainsim
