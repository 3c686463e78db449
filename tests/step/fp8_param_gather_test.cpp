// training.fp8_param_gather (sim/step/fp8_param_gather.hpp): the distributed optimizer gathers
// the linear weights at one byte a parameter, each rank casts its master shard instead of the
// whole weights, the packed amaxes are all-reduced once over the dp x cp ranks, and the host
// makes the casts' calls after the norm's sync.

#include <gtest/gtest.h>

#include <vector>

#include "models/cast_ops.hpp"
#include "sim/compute/roofline_compute_model.hpp"
#include "sim/core/error.hpp"
#include "sim/step/fixed_costs.hpp"
#include "sim/step/fp8_param_gather.hpp"
#include "sim/step/host_bound_pass.hpp"
#include "sim/step/stage_costs.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"
#include "topologies/host_cost.hpp"

namespace trainsim {
namespace {

using testing::scenario;

// Llama 3 8B cut to 4 layers, TP 2 with sequence parallelism, FP8, ZeRO 1 over DP 4 (two
// GB200 trays): public.md A4's 512-GPU layout, shrunk.
const testing::Settings k_off = testing::small_gb200_llama3_8b();
const testing::Settings k_on = testing::merged(k_off, {{"training.fp8_param_gather", "true"}});

StageCosts stage0(const Scenario& s) {
  const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
  return build_step_costs(s, compute, false).stages[0];
}

double seconds(const std::vector<Op>& ops, const Scenario& s) {
  const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
  double t = 0;
  for (const Op& op : ops) t += compute.op_time_s(op);
  return t;
}

// Llama 3 8B's linear weights of one layer on one of 2 TP ranks: QKV 4096 x (4096 + 2 x 1024),
// projection 4096 x 4096, fc1 4096 x 2 x 14336, fc2 14336 x 4096; its two norms (4096 each,
// replicated) are the most the layer's count may add.
constexpr double k_linear_per_layer = (4096.0 * 6144 + 4096.0 * 4096 + 4096.0 * 28672 + 14336.0 * 4096) / 2;

TEST(Fp8ParamGather, GathersTheLinearWeightsAtOneByte) {
  const StageCosts off = stage0(scenario(k_off));
  const StageCosts on = stage0(scenario(k_on));
  const double saved = off.dense_weight_bytes - on.dense_weight_bytes;  // one byte a cast parameter
  EXPECT_GE(saved, 4 * k_linear_per_layer);
  EXPECT_LE(saved, 4 * (k_linear_per_layer + 2 * 4096));
  // The embedding and output layer stay bf16: more than half the bf16 bytes remain.
  EXPECT_GT(on.dense_weight_bytes, off.dense_weight_bytes / 2);
}

TEST(Fp8ParamGather, CastsTheMasterShardNotTheWholeWeights) {
  const Scenario on = scenario(k_on);
  const StageCosts with = stage0(on);
  const StageCosts without = stage0(scenario(k_off));
  const double cast_parameters = without.dense_weight_bytes - with.dense_weight_bytes;
  // 11 bytes a shard element (to bf16 4 + 2, amax 2, cast 2 + 1), three kernels a shard tensor;
  // GB200 reads one fp8 copy in any layout, so no transpose.
  const std::vector<Op> ops = fp8_shard_cast_ops(on, cast_parameters, 4, 16, shard_tensors(16, 4));
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_DOUBLE_EQ(ops[0].bytes, 11.0 * cast_parameters / 4);
  EXPECT_EQ(ops[0].kernels, 3 * (4 + 1));
  // The optimizer's kernels lose the whole cast and gain the shard's.
  const double whole = seconds({*weight_quantize_op(cast_parameters, on.training)}, on);
  EXPECT_NEAR(without.optimizer_s - with.optimizer_s, whole - seconds(ops, on), 1e-12);
  EXPECT_LT(with.optimizer_s, without.optimizer_s);
  // Hopper keeps a transposed copy: written again from the gathered weight, 1 + 1 bytes.
  const Scenario h100 = scenario(k_on, {{"cluster.preset", "dgx-h100"}, {"cluster.nodes", "1"}});
  const std::vector<Op> hopper = fp8_shard_cast_ops(h100, cast_parameters, 4, 16, 5);
  ASSERT_EQ(hopper.size(), 2u);
  EXPECT_DOUBLE_EQ(hopper[1].bytes, 2.0 * cast_parameters);
}

TEST(Fp8ParamGather, ReducesTheAmaxesOnceOverTheDataParallelRanks) {
  const Scenario on = scenario(k_on);
  // 16 fp8 weights (4 layers x 4), one fp32 each, over DP 4 in one rack.
  const double expected = small_allreduce_s(4.0 * 16, 4, 1, on.cluster.nvlink_bandwidth_Bps);
  EXPECT_GT(expected, 0.0);
  EXPECT_DOUBLE_EQ(stage0(on).fp8_param_amax_allreduce_s, expected);
  EXPECT_EQ(stage0(scenario(k_off)).fp8_param_amax_allreduce_s, 0.0);
  EXPECT_EQ(fp8_param_amax_allreduce_s(on, 0), 0.0);
}

TEST(Fp8ParamGather, TheHostCastsTheShardInsteadOfCopyingIt) {
  // 27 tensors of 4 layers over 4 shards: 16 fp8 (copied to none; cast: 3 calls each of
  // ceil(16 / 4) + 1 shard tensors, 2 zeros, the scale update, the all-reduce's call), 11
  // bf16 copied (ceil(11 / 4) + 1); 2 Adam launches, the buffers' reset, the next step.
  EXPECT_EQ(host_ops_after_norm(scenario(k_on), 4, 3), 2 + 4 + (3 * 5 + 2 + 1 + 1) + 1 + 1);
  EXPECT_EQ(host_ops_after_norm(scenario(k_off), 4, 3), 2 + 8 + 1 + 1);
}

TEST(Fp8ParamGather, TheCastLoopViewsEveryWeightOfTheModelNotOnlyTheShards) {
  // Three views a weight (the packed amax's slot, the scale, the scale_inv), 16 fp8 weights of
  // 4 layers, whatever the shard.
  EXPECT_EQ(fp8_weight_loop_views(fp8_weight_tensors(4)), 3 * 16);
  EXPECT_EQ(fp8_weight_loop_views(0), 0);
  // A view's measured x86 cost (pytorch/pytorch#5388), Grace's at TE#2053's 37.08 / 13.48.
  EXPECT_DOUBLE_EQ(host_cost(HostCpu::x86).tensor_view_s, 1.05e-6);
  EXPECT_DOUBLE_EQ(host_cost(HostCpu::grace).tensor_view_s, 1.05e-6 * 37.08 / 13.48);
  // With no optimizer kernels to hide behind, the views add their time to the wait after the
  // norm; without fp8_param_gather there is no such loop.
  const Scenario on = scenario(k_on);
  const HostLaunchCost host = host_launch_cost(on.training, on.cluster.host);
  const double ops_s = host_ops_after_norm(on, 4, gradient_buckets(on, 1e9)) * host.op_s + host.collective_s;
  EXPECT_NEAR(host_after_norm_s(on, 4, 1e9, 0.0) - ops_s, 3 * 16 * host.tensor_view_s, 1e-12);
  const Scenario off = scenario(k_off);
  EXPECT_NEAR(host_after_norm_s(off, 4, 1e9, 0.0), host_ops_after_norm(off, 4, gradient_buckets(off, 1e9)) * host.op_s,
              1e-12);
  // A free host (kernel_host_time = 0us) costs nothing after the norm, the views included.
  Scenario free_host = on;
  free_host.training.kernel_host_time_s = 0.0;
  EXPECT_EQ(host_after_norm_s(free_host, 4, 1e9, 0.0), 0.0);
}

TEST(Fp8ParamGather, IsReportedAsAPartOfTheOptimizer) {
  const auto fields = [](const StepResult& r) {
    return std::vector<double>{r.step_time_s, r.breakdown_s.optimizer, r.fixed_costs_s.fp8_param_amax_allreduce,
                               r.breakdown_s.zero_comm};
  };
  const std::vector<double> on = testing::simulated_fields(scenario(k_on), true, fields);
  const std::vector<double> off = testing::simulated_fields(scenario(k_off), true, fields);
  EXPECT_GT(on[2], 0.0);
  EXPECT_LE(on[2], on[1]);
  EXPECT_EQ(off[2], 0.0);
  // Symmetry (DESIGN.md): the reduced step equals --full.
  const std::vector<double> full = testing::simulated_fields(scenario(k_on), false, fields);
  for (size_t i = 0; i < on.size(); ++i) EXPECT_NEAR(on[i], full[i], 1e-6 * on[0]) << "field " << i;
}

TEST(Fp8ParamGather, NeedsPerTensorFp8AndTheDistributedOptimizer) {
  EXPECT_THROW(scenario(k_on, {{"training.precision", "bf16"}}), InputError);
  EXPECT_THROW(scenario(k_on, {{"training.precision", "mxfp8"}}), InputError);
  EXPECT_THROW(scenario(k_on, {{"parallel.zero", "0"}, {"parallel.overlap_param_gather", "false"}}), InputError);
  EXPECT_NO_THROW(scenario(k_on, {{"training.fp8_scaling", "delayed"}}));
}

}  // namespace
}  // namespace trainsim
