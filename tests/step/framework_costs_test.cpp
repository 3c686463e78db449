// What a real step pays beside GEMMs and attention, in the step simulation: tensor-parallel
// communication overlap (Megatron-LM --tp-comm-overlap), blocking or overlapped pipeline
// sends, the parameter gather beside the next forward (overlap_param_gather), the compute
// slowdown while communication runs beside it, and full recomputation of some layers.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/compute/roofline_compute_model.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/step/step_simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

struct Result {
  double step_s, forward_s, backward_s, recompute_s, tp_comm, pp_comm, zero_comm;
};

Result simulate(const Scenario& s, bool reduce = true) {
  const std::vector<double> v = testing::simulated_fields(s, reduce, [](const StepResult& r) {
    const StepBreakdown& b = r.breakdown_s;
    return std::vector<double>{r.step_time_s, b.forward, b.backward, b.recompute, b.tp_comm, b.pp_comm, b.zero_comm};
  });
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
}

// Llama 3 8B's shape, 8 layers, TP 8 with sequence parallelism on one node.
const Settings k_tp{{"model.preset", "llama3-8b"}, {"model.layers", "8"}, {"model.seq_len", "4096"},
                    {"training.grad_accum", "2"},  {"parallel.tp", "8"},  {"parallel.sequence_parallel", "true"},
                    {"cluster.nodes", "1"}};

TEST(FrameworkCosts, TpCommOverlapHidesTheCollectivesBehindTheirGemms) {
  // The collectives alone, the host free: at 30 us an op this layer's launches outlast its
  // kernels, and the blocking all-reduces hide them (host_beside_collectives) where the
  // overlapped ones, beside the GEMMs, do not (0.0411 s blocking against 0.0417 s overlapped).
  const Settings free_host = testing::merged(k_tp, {{"training.kernel_host_time", "0us"}});
  const Result blocking = simulate(scenario(free_host));
  const Result overlapped = simulate(scenario(free_host, {{"parallel.tp_comm_overlap", "true"}}));
  EXPECT_GT(blocking.tp_comm, 0);
  EXPECT_LT(overlapped.tp_comm, 0.5 * blocking.tp_comm);
  EXPECT_LT(overlapped.step_s, blocking.step_s);
  // The GEMMs run in tp chunks and slower beside the collectives: compute takes longer.
  EXPECT_GT(overlapped.forward_s + overlapped.backward_s, blocking.forward_s + blocking.backward_s);
  // Without the slowdown and with the chunks as fast as whole GEMMs, at best the
  // collectives vanish: the overlapped step is never faster than compute alone.
  EXPECT_GE(overlapped.step_s, blocking.step_s - blocking.tp_comm - 1e-9);
}

TEST(FrameworkCosts, TpCommOverlapReducedEqualsFull) {
  const Scenario s = scenario(
      k_tp,
      {{"parallel.tp_comm_overlap", "true"}, {"parallel.pp", "2"}, {"parallel.tp", "4"}, {"training.grad_accum", "4"}});
  const Result reduced = simulate(s, true);
  const Result full = simulate(s, false);
  EXPECT_NEAR(reduced.step_s / full.step_s, 1.0, 0.01);
  EXPECT_NEAR(reduced.tp_comm, full.tp_comm, 0.02 * reduced.step_s);
}

// A pass without a host sync (stage_waits.cpp, host_beside_collectives): the host launches on
// while the pass's blocking TP all-reduces hold the stream. Llama 3 8B at TP 4 on 2,048
// tokens, at the A100 trace's host costs (training.host_stack_factor 1): a layer's launches
// take longer than its kernels (a Transformer Engine module call 2.69 x 30 us) but hardly
// longer than its kernels and all-reduces together: the step comes within 0.5 % of the one
// without host costs (1.0021x with this build; 1.075x before, when the host's wait was added
// to the collectives: trainsim run with cluster.calibration = none), and with the shipped H100
// table equal to it. At 1 ms an op the host binds it (and at Megatron-Core's fitted 2.3x,
// 1.48x: a short layer of this size would be host-bound on its stack).
TEST(FrameworkCosts, SyncFreeLaunchesHideBehindBlockingCollectives) {
  const Settings small{{"model.preset", "llama3-8b"}, {"model.layers", "8"},
                       {"model.seq_len", "2048"},     {"training.grad_accum", "4"},
                       {"parallel.tp", "4"},          {"parallel.pp", "2"},
                       {"cluster.nodes", "2"},        {"training.host_stack_factor", "1"}};
  const auto run = [](const Scenario& s) {
    return testing::simulated_fields(s, true, [](const StepResult& r) {
      return std::vector<double>{r.step_time_s, r.host_wait_s};
    });
  };
  const std::vector<double> with_host = run(scenario(small));
  const std::vector<double> no_host = run(scenario(small, {{"training.kernel_host_time", "0us"}}));
  EXPECT_LT(with_host[0] / no_host[0], 1.005);
  EXPECT_LT(with_host[1], 0.005 * with_host[0]);
  const std::vector<double> slow = run(scenario(small, {{"training.kernel_host_time", "1ms"}}));
  EXPECT_GT(slow[1], 0.0);
  EXPECT_GT(slow[0], with_host[0]);
}

TEST(FrameworkCosts, GemmsBesideTpCommunicationRunOnTheSmsLeft) {
  // The output projection's pipelined chunks (1024 x 4096: 128 tiles, one wave on the
  // H100's 132 SMs) take two waves beside a reduce-scatter on 24 SMs, four beside 100.
  const Settings s = {{"parallel.tp_comm_overlap", "true"}, {"parallel.tp_overlap_proj_fprop", "pipeline:0:4"}};
  const Result free = simulate(scenario(k_tp, s));
  Settings taken = s;
  taken.back().second = "pipeline:24:4";
  const Result slowed = simulate(scenario(k_tp, taken));
  EXPECT_GT(slowed.forward_s, free.forward_s);
  // Here the reduce-scatters still outlast their chunks on 108 SMs: the step waits for them.
  EXPECT_GE(slowed.step_s, free.step_s);
  Settings more = taken;
  more.push_back({"parallel.tp_comm_overlap_sms", "100"});
  const Result greedy = simulate(scenario(k_tp, more));
  EXPECT_GT(greedy.forward_s, slowed.forward_s);
  EXPECT_GT(greedy.step_s, slowed.step_s);
}

TEST(FrameworkCosts, ComputeSlowsBesideZero3Gathers) {
  // training.overlap_slowdown applies while ZeRO-3 parameter gathers run beside compute.
  const Settings fsdp{{"model.preset", "llama3-8b"}, {"model.layers", "8"},  {"model.seq_len", "4096"},
                      {"training.grad_accum", "2"},  {"parallel.zero", "3"}, {"cluster.nodes", "2"}};
  const Result slowed = simulate(scenario(fsdp));
  const Result free = simulate(scenario(fsdp, {{"training.overlap_slowdown", "0%"}}));
  EXPECT_GT(slowed.forward_s, free.forward_s);
}

// Two stages across two nodes: pipeline sends cross the network.
const Settings k_pipeline{{"model.preset", "llama3-8b"}, {"model.layers", "8"}, {"model.seq_len", "4096"},
                          {"training.grad_accum", "8"},  {"parallel.pp", "2"},  {"parallel.tp", "8"},
                          {"cluster.nodes", "2"}};

TEST(FrameworkCosts, BlockingPipelineSendsWaitForTheirTransfers) {
  const Result overlapped = simulate(scenario(k_pipeline, {{"parallel.pp_comm_overlap", "true"}}));
  const Result blocking = simulate(scenario(k_pipeline, {{"parallel.pp_comm_overlap", "false"}}));
  EXPECT_GT(blocking.pp_comm, overlapped.pp_comm);
  EXPECT_GT(blocking.step_s, overlapped.step_s);
  // auto: blocking with 1F1B (Megatron-LM's default), overlapped with interleaving.
  const Result automatic = simulate(scenario(k_pipeline));
  EXPECT_DOUBLE_EQ(automatic.step_s, blocking.step_s);
}

TEST(FrameworkCosts, ParameterGatherBesideTheFirstForward) {
  // ZeRO-1 over 16 ranks on two nodes: the updated parameters' all-gather.
  const Settings zero{{"model.preset", "llama3-8b"}, {"model.layers", "8"},  {"model.seq_len", "4096"},
                      {"training.grad_accum", "2"},  {"parallel.zero", "1"}, {"cluster.nodes", "2"}};
  const Result after = simulate(scenario(zero));
  const Result beside = simulate(scenario(zero, {{"parallel.overlap_param_gather", "true"}}));
  EXPECT_GT(after.zero_comm, 0);
  EXPECT_LT(beside.zero_comm, after.zero_comm);
  EXPECT_LT(beside.step_s, after.step_s);
}

TEST(FrameworkCosts, RecomputingSomeLayersCostsTheirShare) {
  const Settings base{{"model.preset", "llama3-8b"}, {"model.layers", "8"}, {"model.seq_len", "4096"},
                      {"training.grad_accum", "2"},  {"parallel.tp", "8"},  {"cluster.nodes", "1"}};
  const Result all = simulate(scenario(base, {{"training.recompute", "full"}}));
  const Result two = simulate(scenario(base, {{"training.recompute", "full"}, {"training.recompute_layers", "2"}}));
  const Result none = simulate(scenario(base));
  EXPECT_GT(all.recompute_s, 0);
  EXPECT_NEAR(two.recompute_s / all.recompute_s, 2.0 / 8.0, 1e-9);
  EXPECT_EQ(none.recompute_s, 0);
  EXPECT_LT(two.step_s, all.step_s);
  EXPECT_GT(two.step_s, none.step_s);
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

TEST(FrameworkCosts, HostOverheadPerLayerAndMicrobatch) {
  // 8 layers, 2 micro-batches, one stage: forward and backward each pay 8 layers' and one
  // micro-batch's host time per micro-batch.
  const Settings base{{"model.preset", "llama3-8b"}, {"model.layers", "8"}, {"model.seq_len", "4096"},
                      {"training.grad_accum", "2"},  {"parallel.tp", "8"},  {"cluster.nodes", "1"}};
  const Result none = simulate(scenario(base));
  const Result host = simulate(
      scenario(base, {{"training.layer_host_overhead", "100us"}, {"training.microbatch_host_overhead", "1ms"}}));
  EXPECT_NEAR(host.forward_s - none.forward_s, 2 * (8 * 100e-6 + 1e-3), 1e-9);
  EXPECT_NEAR(host.backward_s - none.backward_s, 2 * (8 * 100e-6 + 1e-3), 1e-9);
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

// Qwen3 30B-A3B's MoE layers (16 experts of 768 a rank at EP 8) on one DGX-H100 node, the
// expert group inside it as Megatron-Core orders ranks.
const Settings k_moe{{"model.preset", "qwen3-30b-a3b"}, {"model.layers", "4"},         {"model.seq_len", "4096"},
                     {"training.grad_accum", "2"},      {"training.precision", "fp8"}, {"parallel.ep", "8"},
                     {"parallel.order", "tp-cp-dp-pp"}, {"cluster.nodes", "1"}};

TEST(FrameworkCosts, SmallExpertKernelsRunAtTheHostsPace) {
  // The per-expert GEMMs and quantizations are shorter than their launches: the MoE layer's
  // passes take longer at the measured host time per kernel than with a free host.
  const Result free_host = simulate(scenario(k_moe, {{"training.kernel_host_time", "0us"}}));
  const Result host = simulate(scenario(k_moe));
  EXPECT_GT(host.forward_s, free_host.forward_s);
  EXPECT_GT(host.step_s, free_host.step_s);
  // Llama 3 8B's layers on TP 8: kernels of hundreds of microseconds, the host at the A100
  // trace's costs (training.host_stack_factor 1) runs ahead.
  const Result dense_free = simulate(scenario(k_tp, {{"training.kernel_host_time", "0us"}}));
  const Result dense = simulate(scenario(k_tp, {{"training.host_stack_factor", "1"}}));
  EXPECT_DOUBLE_EQ(dense.step_s, dense_free.step_s);
}

double ep_comm_s(const Scenario& s) {
  return testing::simulated_fields(s, true,
                                   [](const StepResult& r) { return std::vector<double>{r.breakdown_s.ep_comm}; })[0];
}

TEST(FrameworkCosts, AllToAllsAreNotTimedByTheParameterGatherBesideTheFirst) {
  // overlap_param_gather's all-gather shares NVLink with the first micro-batch's
  // all-to-alls only: the other micro-batches' must not reuse that contended duration.
  const Settings many{{"training.grad_accum", "8"}, {"parallel.zero", "1"}};
  Settings on = many, off = many;
  on.emplace_back("parallel.overlap_param_gather", "true");
  off.emplace_back("parallel.overlap_param_gather", "false");
  const double with_gather = ep_comm_s(scenario(k_moe, on));
  const double without = ep_comm_s(scenario(k_moe, off));
  EXPECT_GT(without, 0);
  EXPECT_LT(with_gather, 1.25 * without);
}

}  // namespace
}  // namespace trainsim
