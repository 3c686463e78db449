// A pass at the host's pace (sim/step/host_bound_pass.hpp): the host launches each kernel in
// training.kernel_host_time, the GPU runs it once launched, and after a device-to-host
// synchronization the host starts from behind.

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "models/cuda_graphs.hpp"
#include "models/layer_workload.hpp"
#include "sim/step/host_bound_pass.hpp"
#include "tests/models/qwen3_moe.hpp"
#include "tests/step/host_test_ops.hpp"

namespace trainsim {
namespace {

using testing::GivenTimes;
using testing::k_host;
using testing::k_us;
using testing::op;

TEST(HostBoundPass, LongKernelsHideTheHost) {
  const GivenTimes gpu;
  // 3 kernels of 100 us against 30 us of host each: the host runs ahead.
  const std::vector<Op> ops{op("a", 100 * k_us, 1), op("b", 100 * k_us, 1), op("c", 100 * k_us, 1)};
  EXPECT_DOUBLE_EQ(host_bound_excess_s(ops, gpu, 1.0, k_host), 0.0);
}

TEST(HostBoundPass, ShortKernelsRunAtTheHostsPace) {
  const GivenTimes gpu;
  // 16 grouped GEMMs of 5 us each in one op (80 us) and a 10 us op: 17 launches of 30 us.
  const std::vector<Op> ops{op("experts.up", 80 * k_us, 16), op("act", 10 * k_us, 1)};
  EXPECT_NEAR(host_bound_excess_s(ops, gpu, 1.0, k_host), 17 * 30 * k_us - 90 * k_us, 1e-12);
  // No host time, no excess.
  EXPECT_DOUBLE_EQ(host_bound_excess_s(ops, gpu, 1.0, HostLaunchCost{}), 0.0);
}

TEST(HostBoundPass, ASyncKeepsTheHostFromRunningAheadOverIt) {
  const GivenTimes gpu;
  // Before the sync: one long kernel (1 ms, 1 launch); after: 10 launches of 1 us kernels.
  // Without the sync the long kernel would hide the 10 launches (330 us < 1.01 ms); with it
  // the host waits for the long kernel and then launches the short ones one by one, and the
  // next layer's long kernel waits for its own launch behind them: 11 launches of 30 us
  // against 10 us of the short kernels.
  std::vector<Op> ops{op("attention", 1e-3, 1), op("moe.permute", 1 * k_us, 1, true)};
  for (int i = 0; i < 9; ++i) ops.push_back(op("small", 1 * k_us, 1));
  EXPECT_NEAR(host_bound_excess_s(ops, gpu, 1.0, k_host), (11 * 30 - 10) * k_us, 1e-12);
  ops[1].host_sync = false;
  EXPECT_DOUBLE_EQ(host_bound_excess_s(ops, gpu, 1.0, k_host), 0.0);
}

TEST(HostBoundPass, AfterASyncTheGpuWaitsForTheFirstLaunch) {
  const GivenTimes gpu;
  // A layer of two long kernels with a sync before the second: the host always runs ahead,
  // yet at each sync the queue drains and the GPU waits 30 us for the next launch.
  std::vector<Op> ops{op("attention", 1e-3, 1), op("moe.permute", 1e-3, 1, true)};
  EXPECT_NEAR(host_bound_excess_s(ops, gpu, 1.0, k_host), 30 * k_us, 1e-12);
  // The first op a sync: the same period, one wait.
  std::swap(ops[0], ops[1]);
  EXPECT_NEAR(host_bound_excess_s(ops, gpu, 1.0, k_host), 30 * k_us, 1e-12);
  // Two syncs, two waits.
  ops[1].host_sync = true;
  EXPECT_NEAR(host_bound_excess_s(ops, gpu, 1.0, k_host), 60 * k_us, 1e-12);
}

TEST(HostBoundPass, TheQueueRunsKernelsInLaunchOrder) {
  const GivenTimes gpu;
  // After the sync, 10 short kernels (1 us, 30 us of host each), then a 500 us one: the GPU
  // waits for each short one's launch and then for the long one's, which starts at 330 us.
  // The same kernels the other way round: the long one's 500 us hide the ten launches, the
  // GPU waits for the first launch only.
  std::vector<Op> ops{op("moe.permute", 1 * k_us, 1, true)};
  for (int i = 0; i < 9; ++i) ops.push_back(op("small", 1 * k_us, 1));
  ops.push_back(op("long", 500 * k_us, 1));
  EXPECT_NEAR(host_bound_excess_s(ops, gpu, 1.0, k_host), (330 + 500 - 510) * k_us, 1e-12);
  std::vector<Op> reversed{op("long", 500 * k_us, 1, true)};
  for (int i = 0; i < 10; ++i) reversed.push_back(op("small", 1 * k_us, 1));
  EXPECT_NEAR(host_bound_excess_s(reversed, gpu, 1.0, k_host), 30 * k_us, 1e-12);
}

TEST(HostBoundPass, TheBusiestExpertRanksGpuTimeCounts) {
  const GivenTimes gpu;
  // 16 launches (480 us) against 400 us of expert GEMMs: 80 us at the balanced load, none
  // when the busiest rank has 1.5 x the tokens (600 us on its GPU).
  const std::vector<Op> ops{op("experts.up", 400 * k_us, 16)};
  EXPECT_NEAR(host_bound_excess_s(ops, gpu, 1.0, k_host), 80 * k_us, 1e-12);
  EXPECT_DOUBLE_EQ(host_bound_excess_s(ops, gpu, 1.5, k_host), 0.0);
}

TEST(HostBoundPass, AnOpsFurtherKernelsCostTheLaunchCallOnly) {
  const GivenTimes gpu;
  // A grouped GEMM of 16 experts, 5 us each on the GPU: one dispatch of 30 us and 15 launches
  // of 6 us from Transformer Engine's C++ loop, 120 us of host against 80 us of GPU.
  const std::vector<Op> ops{op("experts.up", 80 * k_us, 16)};
  EXPECT_NEAR(host_bound_excess_s(ops, gpu, 1.0, HostLaunchCost{30 * k_us, 6 * k_us}), 40 * k_us, 1e-12);
}

// A Python-issued op (Transformer Engine's Triton permutation: make_row_id_map's three passes
// and the permute kernel, models/moe_kernel_counts.hpp) pays a dispatch for each of its calls,
// not one dispatch and launch calls.
TEST(HostBoundPass, EachPythonCallOfAnOpCostsADispatch) {
  Op permute = op("moe.permute", 40 * k_us, 4);
  permute.calls = 4;
  const HostLaunchCost host{30 * k_us, 6 * k_us};
  EXPECT_NEAR(host_seconds(permute, host), 120 * k_us, 1e-12);
  EXPECT_NEAR(kernel_launch_seconds(permute, 3, host), 30 * k_us, 1e-15);
  permute.calls = 2;  // two calls, the other two kernels launched from inside them
  EXPECT_NEAR(host_seconds(permute, host), 72 * k_us, 1e-12);
  const GivenTimes gpu;
  permute.calls = 4;
  EXPECT_NEAR(host_bound_excess_s({permute}, gpu, 1.0, host), 80 * k_us, 1e-12);
}

TEST(HostBoundPass, AnExpertsGemmAlsoCostsItsCublasLtSetUp) {
  const GivenTimes gpu;
  // 16 experts' GEMMs, 5 us each on the GPU: one dispatch of 30 us, then 15 GEMMs each
  // launched (6 us) after Transformer Engine's cuBLASLt set-up (5 us): 195 us of host against
  // 80 us of GPU. The same 16 kernels of a quantization pay the launches only.
  Op grouped = op("experts.up", 80 * k_us, 16);
  grouped.kind = OpKind::gemm;
  grouped.gemm = {256, 1536, 2048, 16};
  const HostLaunchCost host{30 * k_us, 6 * k_us, 1.0, 5 * k_us};
  EXPECT_NEAR(further_launch_seconds(grouped, host), 11 * k_us, 1e-15);
  EXPECT_NEAR(host_seconds(grouped, host), 195 * k_us, 1e-12);
  EXPECT_NEAR(host_bound_excess_s({grouped}, gpu, 1.0, host), 115 * k_us, 1e-12);
  const Op casts = op("experts.up.quantize", 80 * k_us, 16);
  EXPECT_NEAR(further_launch_seconds(casts, host), 6 * k_us, 1e-15);
  // A dense GEMM is one kernel: nothing further.
  Op dense = grouped;
  dense.gemm.batch = 1;
  dense.kernels = 1;
  EXPECT_NEAR(host_seconds(dense, host), 30 * k_us, 1e-15);
  // No host model, no set-up; the host types carry RAFT's measured 5 us (x86) and Grace's
  // scaled figure.
  EXPECT_DOUBLE_EQ(further_launch_seconds(grouped, HostLaunchCost{}), 0.0);
  EXPECT_DOUBLE_EQ(host_cost(HostCpu::x86).gemm_setup_s, 5e-6);
  EXPECT_GT(host_cost(HostCpu::grace).gemm_setup_s, host_cost(HostCpu::x86).gemm_setup_s);
  EXPECT_DOUBLE_EQ(host_launch_cost(TrainingSpec{}, HostCpu::x86).gemm_setup_s, 5e-6);
}

TEST(HostBoundPass, SegmentsSayWhoWaitsForWhom) {
  const GivenTimes gpu;
  // Played from the sync: 13 launches of 30 us for 10 us of kernels (the GPU waits 381 us
  // for the host), then the next layer's 1 ms kernel, launched at 420 us, which the GPU
  // starts 29 us after its last short kernel; the host waits 1 ms for it at the next sync.
  std::vector<Op> ops{op("attention", 1e-3, 1), op("moe.permute", 1 * k_us, 4, true)};
  for (int i = 0; i < 9; ++i) ops.push_back(op("small", 1 * k_us, 1));
  const std::vector<HostSegment> s = host_segments(ops, gpu, 1.0, k_host);
  ASSERT_EQ(s.size(), 2U);
  EXPECT_EQ(s[0].first_op, 0U);
  EXPECT_EQ(s[0].ops, 1U);
  EXPECT_FALSE(s[0].after_sync);
  EXPECT_NEAR(s[0].host_waits_s, 1000 * k_us, 1e-12);
  EXPECT_NEAR(s[0].gpu_waits_s(), 29 * k_us, 1e-12);
  EXPECT_EQ(s[1].first_op, 1U);
  EXPECT_EQ(s[1].ops, 10U);
  EXPECT_EQ(s[1].kernels, 13);
  EXPECT_TRUE(s[1].after_sync);
  EXPECT_NEAR(s[1].host_s, 13 * 30 * k_us, 1e-12);
  EXPECT_NEAR(s[1].time_s, 391 * k_us, 1e-12);
  EXPECT_NEAR(s[1].gpu_waits_s(), 381 * k_us, 1e-12);
  EXPECT_DOUBLE_EQ(s[1].host_waits_s, 0.0);  // no sync after it: the host runs on
  EXPECT_NEAR(s[0].time_s + s[1].time_s, 1420 * k_us, 1e-12);
  EXPECT_NEAR(host_bound_excess_s(ops, gpu, 1.0, k_host), s[0].gpu_waits_s() + s[1].gpu_waits_s(), 1e-15);
}

TEST(HostBoundPass, TheScenarioSetsTheHostCostsOrTheHostTypeDoes) {
  TrainingSpec t;
  const HostLaunchCost x86 = host_launch_cost(t, HostCpu::x86);
  EXPECT_DOUBLE_EQ(x86.op_s, host_cost(HostCpu::x86).op_s);
  EXPECT_DOUBLE_EQ(host_launch_cost(t, HostCpu::grace).launch_s, host_cost(HostCpu::grace).launch_s);
  t.kernel_host_time_s = 50e-6;
  EXPECT_DOUBLE_EQ(host_launch_cost(t, HostCpu::grace).op_s, 50e-6);
  EXPECT_DOUBLE_EQ(host_launch_cost(t, HostCpu::grace).launch_s, host_cost(HostCpu::grace).launch_s);
  EXPECT_DOUBLE_EQ(host_seconds(op("g", 0, 16), HostLaunchCost{30 * k_us, 6 * k_us}), 120 * k_us);
  EXPECT_DOUBLE_EQ(host_seconds(op("g", 0, 16), HostLaunchCost{}), 0.0);
}

// A graph's replay costs the host a Transformer Engine module call (module_factor x op_s) and
// one framework op per tensor it copies into its static buffers (models/graph_replay.hpp): in
// the forward the layer's input. Adjacent per-layer scopes are one graph; an eager op between
// two captured ones makes two replays.
TEST(HostBoundPass, AGraphCostsTheHostOneReplay) {
  const GivenTimes gpu;
  // 16 grouped GEMMs and an activation, 90 us on the GPU: 17 launches eagerly; captured, one
  // replay: 30 us x (module factor 1 + 1 copy).
  std::vector<Op> ops{op("experts.up", 80 * k_us, 16), op("act", 10 * k_us, 1)};
  EXPECT_NEAR(host_segments(ops, gpu, 1.0, k_host)[0].host_s, 17 * 30 * k_us, 1e-12);
  ops[0].graph_scope = ops[1].graph_scope = 2;
  EXPECT_NEAR(host_segments(ops, gpu, 1.0, k_host)[0].host_s, 2 * 30 * k_us, 1e-12);
  EXPECT_DOUBLE_EQ(host_bound_excess_s(ops, gpu, 1.0, k_host), 0.0);
  ops[1].graph_scope = 3;  // another per-layer scope of the same layer: the same graph
  EXPECT_NEAR(host_segments(ops, gpu, 1.0, k_host)[0].host_s, 2 * 30 * k_us, 1e-12);
  EXPECT_DOUBLE_EQ(graph_host_seconds(ops, 1, k_host), 0.0);
  // An eager op between: two replays.
  ops.insert(ops.begin() + 1, op("eager", 0, 1));
  EXPECT_NEAR(host_segments(ops, gpu, 1.0, k_host)[0].host_s, (2 + 1 + 2) * 30 * k_us, 1e-12);
  // The module factor prices the replay's call; a backward graph ending at the router copies
  // back three gradients (hidden states, probabilities, residual).
  HostLaunchCost host = k_host;
  host.module_factor = 2.5;
  std::vector<Op> bwd{op("router.dgrad", 0, 1), op("mlp.norm.bwd", 0, 1), op("attention.bwd", 0, 1)};
  for (Op& o : bwd) o.pass = OpPass::backward;
  bwd[0].graph_scope = bwd[1].graph_scope = static_cast<int>(GraphScope::moe_router);
  bwd[2].graph_scope = static_cast<int>(GraphScope::attn);
  EXPECT_NEAR(graph_host_seconds(bwd, 0, host), (2.5 + 3) * 30 * k_us, 1e-15);
  EXPECT_DOUBLE_EQ(graph_host_seconds(bwd, 2, host), 0.0);
  bwd[0].graph_scope = bwd[1].graph_scope = static_cast<int>(GraphScope::attn);  // attention only: one
  EXPECT_NEAR(graph_host_seconds(bwd, 0, host), (2.5 + 1) * 30 * k_us, 1e-15);
  EXPECT_DOUBLE_EQ(graph_host_seconds(ops, 0, HostLaunchCost{}), 0.0);
}

// A collective the host calls before an op (Op::collective_calls) costs it one framework call
// and c10d's work, before the op's own dispatch; captured in a graph, nothing. x86 carries the
// median c10d call of the A100 trace (87.5 us), Grace 2.75x it; a stated host time scales it.
TEST(HostBoundPass, ACollectiveCallCostsTheHostBeforeTheNextOp) {
  const HostLaunchCost host{30 * k_us, 6 * k_us, 1.0, 0.0, 90 * k_us};
  Op sort = op("experts.sort", 0, 2);
  sort.calls = 2;
  EXPECT_NEAR(host_seconds(sort, host), 60 * k_us, 1e-15);
  sort.collective_calls = 2;  // the dispatch's token and probability all-to-alls
  EXPECT_NEAR(first_launch_seconds(sort, host), 2 * (30 + 90) * k_us + 30 * k_us, 1e-15);
  EXPECT_NEAR(host_seconds(sort, host), 2 * (30 + 90) * k_us + 60 * k_us, 1e-15);
  EXPECT_DOUBLE_EQ(host_seconds(sort, HostLaunchCost{}), 0.0);
  // The host's time before a long kernel after a sync: the GPU waits for the calls too.
  const GivenTimes gpu;
  std::vector<Op> ops{op("attention", 1e-3, 1), op("moe.permute", 1e-3, 1, true)};
  ops[1].collective_calls = 1;
  EXPECT_NEAR(host_bound_excess_s(ops, gpu, 1.0, host), (30 + 90 + 30) * k_us, 1e-12);
  ops[1].graph_scope = 1;  // captured: the graph's replay and its input's copy, no collective
  EXPECT_NEAR(graph_host_seconds(ops, 1, host), (30 + 30) * k_us, 1e-15);
  EXPECT_DOUBLE_EQ(host_cost(HostCpu::x86, 1.0).collective_s, 87.5e-6);
  EXPECT_NEAR(host_cost(HostCpu::grace, 1.0).collective_s, 87.5e-6 * 37.08 / 13.48, 1e-12);
  TrainingSpec t;
  EXPECT_NEAR(host_launch_cost(t, HostCpu::x86).collective_s, 87.5e-6 * fitted_host_stack_factor(), 1e-15);
  t.kernel_host_time_s = 2 * host_cost(HostCpu::x86).op_s;  // the host is twice as slow
  EXPECT_NEAR(host_launch_cost(t, HostCpu::x86).collective_s, 2 * host_cost(HostCpu::x86).collective_s, 1e-15);
  // A stated stack factor replaces the fitted one before the host time scales it.
  t = TrainingSpec{};
  t.host_stack_factor = 1.5;
  EXPECT_NEAR(host_launch_cost(t, HostCpu::grace).collective_s, 1.5 * 87.5e-6 * 37.08 / 13.48, 1e-15);
}

// Every weight a weight-gradient GEMM hands back costs the host weight_gradient_s: a grouped
// GEMM's gemm.batch experts each, a dense GEMM's one weight once; no other op; a stated host
// time scales it as it does the ops it is measured beside.
TEST(HostBoundPass, EachWeightsGradientCostsTheHostItsAccumulation) {
  HostLaunchCost host{30 * k_us, 6 * k_us, 1.0, 0.0, 0.0, 10 * k_us};
  Op wgrad = op("experts.up.wgrad", 0, 16);
  wgrad.kind = OpKind::gemm;
  wgrad.weight_gradient = true;
  wgrad.gemm = {2048, 1536, 256, 16};
  EXPECT_NEAR(weight_gradient_seconds(wgrad, host), 16 * 10 * k_us, 1e-15);
  // Before the first kernel, with the launch calls: 16 x 10 us beyond the same op without.
  Op without = wgrad;
  without.weight_gradient = false;
  EXPECT_NEAR(host_seconds(wgrad, host) - host_seconds(without, host), 160 * k_us, 1e-15);
  EXPECT_NEAR(first_launch_seconds(wgrad, host) - first_launch_seconds(without, host), 160 * k_us, 1e-15);
  Op dense = wgrad;
  dense.gemm.batch = 1;
  dense.kernels = 1;
  EXPECT_NEAR(weight_gradient_seconds(dense, host), 10 * k_us, 1e-15);
  // The accumulation into the buffer (an elementwise op with weight_gradient) and a dgrad: none.
  Op accumulate = op("experts.up.wgrad.accumulate", 0, 1);
  accumulate.weight_gradient = true;
  accumulate.gemm = wgrad.gemm;
  EXPECT_DOUBLE_EQ(weight_gradient_seconds(accumulate, host), 0.0);
  EXPECT_DOUBLE_EQ(weight_gradient_seconds(without, host), 0.0);
  EXPECT_DOUBLE_EQ(weight_gradient_seconds(wgrad, HostLaunchCost{}), 0.0);
  // Replayed in a backward graph of the attention, its replay, the one gradient it copies in
  // and the weights still.
  std::vector<Op> graphed{wgrad};
  graphed[0].pass = OpPass::backward;
  graphed[0].graph_scope = static_cast<int>(GraphScope::attn);
  EXPECT_NEAR(graph_host_seconds(graphed, 0, host), (30 + 30 + 160) * k_us, 1e-15);
  // A full-iteration graph replays the backward without autograd: its dispatch only.
  graphed[0].graph_scope = static_cast<int>(GraphScope::full_iteration);
  EXPECT_NEAR(graph_host_seconds(graphed, 0, host), 30 * k_us, 1e-15);
  // The host types: the A100 x86 trace's AccumulateGrad without a kernel (9 us) and TE#2897's
  // 550 us over 128 weights on Grace, each scaled to the other host by Grace's 2.75x.
  const double grace_te = 550e-6 / 128.0;
  const double grace = 37.08 / 13.48;
  EXPECT_NEAR(host_cost(HostCpu::x86, 1.0).weight_gradient_s, 9e-6 + grace_te / grace, 1e-12);
  EXPECT_NEAR(host_cost(HostCpu::grace, 1.0).weight_gradient_s, 9e-6 * grace + grace_te, 1e-12);
  TrainingSpec t;
  EXPECT_DOUBLE_EQ(host_launch_cost(t, HostCpu::x86).weight_gradient_s, host_cost(HostCpu::x86).weight_gradient_s);
  t.kernel_host_time_s = 2 * host_cost(HostCpu::x86).op_s;  // twice x86's op_s
  EXPECT_NEAR(host_launch_cost(t, HostCpu::x86).weight_gradient_s, 2 * host_cost(HostCpu::x86).weight_gradient_s,
              1e-15);
}

// A Qwen3 30B-A3B layer at EP 8 hands back 35 weights' gradients a micro-batch: linear_qkv's
// and linear_proj's weights, the router's, and one weight per local expert (128 / 8 = 16) in
// each of TEGroupedMLP's two GroupedLinear modules (TE v2.9 grouped_linear.py registers
// weight0 .. weight15), dropless or padded alike. The norms' weights are not counted.
TEST(HostBoundPass, AQwen3LayerHandsBackItsWeightsGradients) {
  ParallelSpec p;
  p.ep = 8;
  const HostLaunchCost host{30 * k_us, 6 * k_us, 1.0, 0.0, 0.0, 1 * k_us};
  for (const bool padded : {false, true}) {
    const PassOps ops = transformer_layer_ops(testing::qwen3_moe(padded), TrainingSpec{}, p);
    double s = 0;
    for (const Op& o : ops.backward) s += weight_gradient_seconds(o, host);
    EXPECT_NEAR(s, (3 + 2 * 16) * k_us, 1e-15) << padded;
    for (const Op& o : ops.forward) EXPECT_DOUBLE_EQ(weight_gradient_seconds(o, host), 0.0) << o.name;
  }
}

}  // namespace
}  // namespace trainsim
