// MoE all-to-all overlap (parallel.moe_a2a_overlap, Megatron-Core's combined 1F1B): which
// tasks pair, what the scenario rules refuse, and the step: the all-to-alls hidden behind
// the other pass's compute, never below that compute, the reduced simulation equal to --full.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/pipeline_inflight.hpp"
#include "sim/core/error.hpp"
#include "sim/schedule/combined_1f1b.hpp"
#include "sim/schedule/pipeline_schedule.hpp"
#include "sim/step/dispatcher_rates.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_bound.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

const auto k_all = [](const PipelineTask&) { return true; };

TEST(Combined1F1B, WithoutPipeliningEachBackwardPairsWithTheNextForward) {
  const std::vector<PipelineTask> order = make_pipeline_schedule(Schedule::one_f_one_b)->order(0, 1, 3, 1);
  const std::vector<ScheduledUnit> units = combined_units(order, k_all);
  const std::vector<ScheduledUnit> expected{{{0, 0, TaskPass::forward}, std::nullopt},
                                            {{0, 0, TaskPass::backward}, PipelineTask{1, 0, TaskPass::forward}},
                                            {{1, 0, TaskPass::backward}, PipelineTask{2, 0, TaskPass::forward}},
                                            {{2, 0, TaskPass::backward}, std::nullopt}};
  EXPECT_EQ(units, expected);
  // A task that may not pair stays alone.
  const auto no_backward_1 = [](const PipelineTask& t) { return !(t.pass == TaskPass::backward && t.microbatch == 1); };
  EXPECT_EQ(combined_units(order, no_backward_1).size(), 5U);
}

TEST(Combined1F1B, InterleavedSteadyStatePairsEveryTaskOnce) {
  // One more warm-up forward (Megatron-Core schedules.py): every steady-state forward runs
  // beside a backward of another micro-batch, and every task runs once.
  for (int stage = 0; stage < 4; ++stage) {
    const auto order = make_pipeline_schedule(Schedule::interleaved, 0, 1)->order(stage, 4, 8, 2);
    const auto plain = make_pipeline_schedule(Schedule::interleaved)->order(stage, 4, 8, 2);
    ASSERT_EQ(order.size(), plain.size());
    const int warmup = interleaved_warmup_chunks(4, stage, 8, 2, 4, 1);
    EXPECT_EQ(warmup, interleaved_warmup_chunks(4, stage, 8, 2, 4) + 1);
    int pairs = 0;
    size_t tasks = 0;
    for (const ScheduledUnit& u : combined_units(order, k_all)) {
      tasks += u.beside ? 2 : 1;
      if (!u.beside) continue;
      ++pairs;
      EXPECT_NE(u.task.pass, u.beside->pass);
      EXPECT_NE(u.task.microbatch, u.beside->microbatch);
    }
    EXPECT_EQ(tasks, order.size());
    EXPECT_EQ(pairs, 8 * 2 - warmup) << "stage " << stage;  // every forward after the warm-up
  }
  // The stage holds the extra warm-up forward's activations.
  EXPECT_DOUBLE_EQ(inflight_microbatches(Schedule::interleaved, 4, 0, 8, 2, 0, 1),
                   inflight_microbatches(Schedule::interleaved, 4, 0, 8, 2) + 0.5);
}

// Qwen3 30B-A3B cut to 4 layers on 8 H100 (TP 1, EP 8: the all-to-alls inside a node). The
// gradients are reduced after the backward: a collective that the reduced simulation takes
// from its duration cache beside an overlapped reduction is timed alone, where --full times
// it beside the reduction (layer_collectives.cpp, LayerCollectives::run), with or without the overlap.
Settings small_qwen(const std::string& pp) {
  Settings s{{"model.preset", "qwen3-30b-a3b"},
             {"model.layers", "4"},
             {"model.seq_len", "2048"},
             {"training.grad_accum", "4"},
             {"parallel.ep", "8"},
             {"parallel.pp", pp},
             {"parallel.overlap_grad_reduce", "false"},
             {"cluster.nodes", pp == "1" ? "1" : "2"}};
  if (pp != "1") {
    s.emplace_back("parallel.schedule", "interleaved");
    s.emplace_back("parallel.virtual_stages", "2");
  }
  return s;
}

TEST(MoeA2aOverlap, RulesAsMegatronCoreAndWhereModelled) {
  const Settings base = small_qwen("1");
  EXPECT_NO_THROW(scenario(base, {{"parallel.moe_a2a_overlap", "true"}}));
  const auto refused = [&](const Settings& extra) {
    Settings with = extra;
    with.emplace_back("parallel.moe_a2a_overlap", "true");
    try {
      scenario(base, with);
    } catch (const InputError& e) {
      return std::string(e.what()).find("parallel.moe_a2a_overlap") != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(refused({{"parallel.ep", "1"}}));
  EXPECT_TRUE(refused({{"training.recompute", "full"}}));
  EXPECT_TRUE(refused({{"training.precision", "fp32"}}));
  EXPECT_TRUE(refused(
      {{"parallel.pp", "2"}, {"parallel.schedule", "1f1b"}, {"parallel.virtual_stages", "1"}, {"cluster.nodes", "2"}}));
  EXPECT_TRUE(refused({{"parallel.cp", "2"}, {"cluster.nodes", "2"}}));
  EXPECT_TRUE(refused({{"parallel.tp", "4"},
                       {"parallel.expert_tp", "2"},
                       {"parallel.ep", "4"},
                       {"parallel.sequence_parallel", "true"},
                       {"cluster.nodes", "2"}}));
  EXPECT_TRUE(refused({{"parallel.zero", "3"}}));
  EXPECT_TRUE(refused({{"parallel.schedule", "zb-h1"}}));
  EXPECT_THROW(scenario(base, {{"parallel.delay_wgrad_compute", "true"}}), InputError);  // needs the overlap
}

// Step time, forward, backward, ep_comm; the step-time lower bound.
std::vector<double> step_of(const Scenario& s, bool reduce) {
  return testing::simulated_fields(s, reduce, [&](const StepResult& r) {
    const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
    return std::vector<double>{r.step_time_s, r.breakdown_s.forward, r.breakdown_s.backward, r.breakdown_s.ep_comm,
                               step_time_lower_bound_s(s, compute)};
  });
}

// TP 2 with sequence parallelism and overlapped TP collectives, EP 8 over two nodes: the TP
// collectives play on the compute stream inside each pass's pieces.
Settings small_qwen_tp() {
  return testing::merged(small_qwen("1"), {{"parallel.tp", "2"},
                                           {"parallel.sequence_parallel", "true"},
                                           {"parallel.tp_comm_overlap", "true"},
                                           {"cluster.nodes", "2"}});
}

TEST(MoeA2aOverlap, HidesTheAllToAllsBehindThePairedPassAndNoMore) {
  for (const std::string pp : {"1", "2", "tp", "folded"}) {
    // Folded: the experts over EP 8 without TP (expert_tp 1) beside the dense TP 2, the
    // layout of Megatron-Bridge's H100 DeepSeek-V3 recipe.
    const Settings base = pp == "tp"       ? small_qwen_tp()
                          : pp == "folded" ? testing::merged(small_qwen_tp(), {{"parallel.expert_tp", "1"}})
                                           : small_qwen(pp);
    const Scenario off = scenario(base);
    const Scenario on = scenario(base, {{"parallel.moe_a2a_overlap", "true"}});
    const std::vector<double> a = step_of(off, true);
    const std::vector<double> b = step_of(on, true);
    ASSERT_GT(a[3], 0) << "pp " << pp;
    // Exposed all-to-all time: the warm-up and cool-down passes run alone (4 micro-batches).
    EXPECT_LT(b[3], (pp == "2" ? 0.75 : 0.5) * a[3]) << "pp " << pp;
    // Shorter, except with PP 2 x 2 virtual stages: one layer a chunk, its all-to-alls inside
    // a node, each pair hides little, and the combine node's kernels, which the pair moves
    // to the communication stream, still take their SMs from the other pass
    // (share_comm_kernels, stage_pair.hpp): there the step may lose up to 1 %.
    EXPECT_LT(b[0], a[0] * (pp == "2" ? 1.01 : 1.0)) << "pp " << pp;
    // The compute runs slowed beside the collectives, never faster than alone.
    EXPECT_GE(b[1] + b[2], a[1] + a[2]) << "pp " << pp;
    EXPECT_LE(b[4], b[0]) << "pp " << pp << ": the lower bound";
    // The reduced simulation plays the pairs as --full does; with folded experts within 2e-4
    // of it: the EP group holds other replicas' TP partners, whose TP collectives beside the
    // all-to-all only --full simulates (sim/README.md). (1e-4 while a fitted 40 % slowdown
    // stretched the GEMMs beside the TP collectives; their exchanges now outlast them more.
    // 2e-4 until the pieces beside the all-to-all ran on the SMs the dispatcher leaves and
    // the dispatcher's c10d calls cost the host: 2.05e-4 with both.)
    const std::vector<double> full = step_of(on, false);
    const double within = pp == "folded" ? 3e-4 : 1e-9;
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(full[i], b[i], within * b[0]) << "pp " << pp << " field " << i;
  }
}

// The dispatch gradient may start after the experts' input gradients: it hides more only where
// the stream is free then and it outlasts the forward's experts, which alike all-to-alls and
// alike expert passes rarely make so (Megatron-Bridge measured 31.31 s without and 31.20 s
// with it: skills/mbridge-perf-moe-comm-overlap/SKILL.md @ 6608201d); never less.
TEST(MoeA2aOverlap, DelayedWeightGradientsRunBesideTheDispatchGradient) {
  const Settings on{{"parallel.moe_a2a_overlap", "true"}};
  Settings delayed = on;
  delayed.emplace_back("parallel.delay_wgrad_compute", "true");
  // EP 16 over two nodes: all-to-alls longer than the compute beside them. The host at the
  // A100 trace's costs (training.host_stack_factor 1) and at the fitted 2.3x, where the
  // pair's host waits lengthen the pieces: the reduced simulation's timer for the dispatch
  // gradient, started right after the weight gradients' lead, once started at the engine's
  // clock before the actor's lazy sleeps had run, 0.6 ms early (1.1 ms, 0.5 % of the step
  // short of --full); stage_pair.cpp settles the clock first.
  for (const char* factor : {"1", "2.3"}) {
    const Settings across = testing::merged(
        small_qwen("1"), {{"parallel.ep", "16"}, {"cluster.nodes", "2"}, {"training.host_stack_factor", factor}});
    const Scenario s = scenario(across, delayed);
    const std::vector<double> a = step_of(scenario(across, on), true);
    const std::vector<double> b = step_of(s, true);
    EXPECT_LE(b[3], a[3] * (1 + 1e-12)) << "factor " << factor;  // no more of the all-to-alls exposed
    // The same compute, slowed beside more.
    EXPECT_NEAR(b[1] + b[2], a[1] + a[2], 0.05 * (a[1] + a[2])) << "factor " << factor;
    const std::vector<double> full = step_of(s, false);
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(full[i], b[i], 1e-9 * b[0]) << "factor " << factor << " field " << i;
  }
}

// What compute beside a pair's collective loses: the dispatcher's SMs of an H100's 132
// (DeepEP 20; HybridEP 24 inside a node, 8 across nodes; NCCL's all-to-all its P2P channels'
// blocks, 32 inside a node, 16 across: ep_overlap_cost.hpp); any dispatcher on a GPU of no
// stated SM count, training.overlap_slowdown.
TEST(MoeA2aOverlap, TheDispatcherTakesItsSmsFromTheComputeBesideIt) {
  const Settings on{{"parallel.moe_a2a_overlap", "true"}};
  const auto with = [&](const char* dispatcher, const char* preset, const Settings& extra = {}) {
    return scenario(
        small_qwen("1"),
        testing::merged(testing::merged(on, extra),
                        {{"parallel.moe_dispatcher", dispatcher}, {"cluster.preset", preset}, {"cluster.nodes", "2"}}));
  };
  const Scenario nccl = with("alltoall", "dgx-h100");
  EXPECT_DOUBLE_EQ(ep_overlap_slowdown(nccl, false), 32.0 / 100.0);
  EXPECT_DOUBLE_EQ(ep_overlap_slowdown(nccl, true), 16.0 / 116.0);
  EXPECT_DOUBLE_EQ(ep_overlap_slowdown(with("deepep", "dgx-h100"), true), 20.0 / 112.0);
  EXPECT_DOUBLE_EQ(ep_overlap_slowdown(with("hybridep", "dgx-h100"), false), 24.0 / 108.0);
  EXPECT_DOUBLE_EQ(ep_overlap_slowdown(with("hybridep", "dgx-h100"), true), 8.0 / 124.0);
  EXPECT_DOUBLE_EQ(ep_overlap_slowdown(with("hybridep", "dgx-b200"), false), 24.0 / 124.0);  // 148 SMs
  // parallel.moe_dispatcher_sms (Megatron-Core's moe_flex_dispatcher_num_sms) replaces the default.
  EXPECT_DOUBLE_EQ(ep_overlap_slowdown(with("hybridep", "dgx-h100", {{"parallel.moe_dispatcher_sms", "32"}}), true),
                   32.0 / 100.0);
  EXPECT_DOUBLE_EQ(ep_overlap_slowdown(with("deepep", "gb200-nvl72"), false), 20.0 / 132.0);  // 152 SMs
  const Scenario gb300 = with("deepep", "gb300-nvl72");  // no stated SM count
  EXPECT_DOUBLE_EQ(ep_overlap_slowdown(gb300, false), gb300.training.overlap_slowdown);
  // Its compute runs slower beside the dispatcher than without the overlap.
  const std::vector<double> alone = step_of(with("deepep", "dgx-h100", {{"parallel.moe_a2a_overlap", "false"}}), true);
  const std::vector<double> beside = step_of(with("deepep", "dgx-h100"), true);
  EXPECT_GT(beside[1] + beside[2], alone[1] + alone[2]);
  // The step takes the dispatcher's SMs, not training.overlap_slowdown, which moves the step
  // only on a GPU of no stated SM count.
  const Settings slower{{"training.overlap_slowdown", "0.5"}};
  for (const char* dispatcher : {"hybridep", "alltoall"})
    EXPECT_DOUBLE_EQ(step_of(with(dispatcher, "dgx-h100"), true)[0],
                     step_of(with(dispatcher, "dgx-h100", slower), true)[0]);
  EXPECT_GT(step_of(with("deepep", "gb300-nvl72", slower), true)[0], step_of(gb300, true)[0]);
}

// The shipped example of the one measured overlap (public.md D5, 16 H100, HybridEP, EP 16
// across nodes): the overlap shortens the step and hides most of the exposed all-to-all time.
TEST(MoeA2aOverlap, TheMeasuredHybridEpExampleSimulatesBothWays) {
  const Scenario on =
      load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/examples/qwen3-30b-a3b-hybridep-overlap.ini");
  ASSERT_TRUE(on.parallel.moe_a2a_overlap);
  Scenario off = on;
  off.parallel.moe_a2a_overlap = false;
  const std::vector<double> a = step_of(off, true);
  const std::vector<double> b = step_of(on, true);
  EXPECT_LT(b[0], a[0]);
  EXPECT_LT(b[3], 0.5 * a[3]);
}

// Beside a slow GPU the EP group's collectives start when its slowest member asks: the
// reduced simulation (one class per kind of replica) plays that as --full does.
TEST(MoeA2aOverlap, BesideASlowGpuTheReducedSimulationEqualsFull) {
  const Settings on{{"parallel.moe_a2a_overlap", "true"}};
  const Settings slow = testing::merged(on, {{"variations.slow_gpu_ids", "3"}, {"variations.slow_gpu_speed", "0.8"}});
  const std::vector<double> uniform = step_of(scenario(small_qwen("1"), on), true);
  const std::vector<double> reduced = step_of(scenario(small_qwen("1"), slow), true);
  const std::vector<double> full = step_of(scenario(small_qwen("1"), slow), false);
  EXPECT_GT(reduced[0], uniform[0]);
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(full[i], reduced[i], 1e-9 * reduced[0]) << "field " << i;
}

}  // namespace
}  // namespace trainsim
