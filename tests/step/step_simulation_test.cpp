// One training step on SimGrid against the published pipeline formulas and the invariants
// of batch accounting. Each simulation runs in a forked child (one SimGrid engine per process).

#include <gtest/gtest.h>

#include <array>
#include <initializer_list>
#include <set>
#include <string>
#include <utility>

#include "models/pipeline_inflight.hpp"
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

// A model whose stages are equal: big layers, a tiny vocabulary.
Settings equal_stages(int pp, int layers, int microbatches) {
  return {{"model.layers", std::to_string(layers)},
          {"model.hidden", "4096"},
          {"model.heads", "32"},
          {"model.ffn_hidden", "16384"},
          {"model.vocab", "8"},
          {"model.seq_len", "4096"},
          {"training.micro_batch", "4"},
          {"training.grad_accum", std::to_string(microbatches)},
          {"parallel.pp", std::to_string(pp)},
          {"parallel.zero", "1"},
          {"cluster.fabric", "ideal"},
          {"cluster.nodes", std::to_string(pp)},  // dp = 8 shards the optimizer (ZeRO-1)
          {"cluster.gpus_per_node", "8"}};
}


struct Measured {
  double step_time_s, bubble, global_batch, tokens, dp_reductions, mfu, exposed, data_s, energy, power;
  std::vector<double> inflight;
};

Measured simulate(const Scenario& s, bool reduce = true) {
  const std::vector<double> v = testing::simulated_fields(s, reduce, [](const StepResult& r) {
    std::vector<double> out{r.step_time_s,
                            r.bubble_fraction,
                            r.global_batch_samples,
                            r.tokens_per_step,
                            static_cast<double>(r.dp_reductions),
                            r.mfu,
                            r.exposed_comm_fraction,
                            r.breakdown_s.data,
                            r.energy_per_step_j,
                            r.avg_power_w};
    out.insert(out.end(), r.inflight_microbatches.begin(), r.inflight_microbatches.end());
    return out;
  });
  Measured m{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], {v.begin() + 10, v.end()}};
  return m;
}

TEST(StepSimulation, GpipeAndOneFOneBBubbleOnAnIdealFabric) {
  // Narayanan et al. SC21 §2.2.1: (p-1)/(m+p-1); p = 4, m = 8: 27.3 %.
  for (const char* schedule : {"gpipe", "1f1b"}) {
    const Measured m = simulate(scenario(equal_stages(4, 8, 8), {{"parallel.schedule", schedule}}));
    EXPECT_NEAR(m.bubble, 3.0 / 11.0, 0.005) << schedule;
  }
}

TEST(StepSimulation, InterleavedBubble) {
  // §2.2.2: (p-1)/(v m + p - 1).
  const Measured m = simulate(
      scenario(equal_stages(4, 16, 8), {{"parallel.schedule", "interleaved"}, {"parallel.virtual_stages", "2"}}));
  EXPECT_NEAR(m.bubble, 3.0 / (2 * 8 + 3), 0.005);
}

TEST(StepSimulation, InterleavedGroupsHoldWhatTheMemoryModelCounts) {
  // Megatron-Core's microbatch_group_size_per_vp_stage: the simulated schedule's peak of
  // chunks in flight is the warm-up + 1 the memory budget counts, for each group size.
  for (const int group : {0, 4, 6, 12}) {
    const Scenario s = scenario(equal_stages(4, 8, 12), {{"parallel.schedule", "interleaved"},
                                                         {"parallel.virtual_stages", "2"},
                                                         {"parallel.microbatch_group", std::to_string(group)}});
    const Measured m = simulate(s);
    ASSERT_EQ(m.inflight.size(), 4u);
    for (int st = 0; st < 4; ++st)
      EXPECT_DOUBLE_EQ(m.inflight[static_cast<size_t>(st)], inflight_microbatches(Schedule::interleaved, 4, st, 12, 2, group))
          << group << " " << st;
  }
}

TEST(StepSimulation, ActivationsInFlight) {
  const Measured one = simulate(scenario(equal_stages(4, 8, 8), {{"parallel.schedule", "1f1b"}}));
  const Measured gpipe = simulate(scenario(equal_stages(4, 8, 8), {{"parallel.schedule", "gpipe"}}));
  ASSERT_EQ(one.inflight.size(), 4u);
  for (int s = 0; s < 4; ++s) {
    EXPECT_LE(one.inflight[static_cast<size_t>(s)], 4 - s);  // 1F1B: at most p - stage
    EXPECT_EQ(gpipe.inflight[static_cast<size_t>(s)], 8);    // GPipe: all m
  }
}

TEST(StepSimulation, ZeroBubbleH1IsWellBelowOneFOneB) {
  const Measured one = simulate(scenario(equal_stages(4, 8, 8), {{"parallel.schedule", "1f1b"}}));
  const Measured zb = simulate(scenario(equal_stages(4, 8, 8), {{"parallel.schedule", "zb-h1"}}));
  EXPECT_LT(zb.bubble, 0.75 * one.bubble);
  EXPECT_LT(zb.step_time_s, one.step_time_s);
}

TEST(StepSimulation, BatchIsCountedFromDataParallelOnly) {
  // 2 nodes of 8: tp x pp varies, dp follows.
  const Settings base{{"model.preset", "llama3-8b"},
                      {"model.seq_len", "2048"},
                      {"training.micro_batch", "2"},
                      {"training.grad_accum", "8"},
                      {"cluster.nodes", "2"}};
  const Measured a = simulate(scenario(base, {{"parallel.tp", "2"}, {"parallel.pp", "2"}}));
  const Measured b = simulate(scenario(base, {{"parallel.tp", "4"}, {"parallel.pp", "1"}}));
  EXPECT_EQ(a.global_batch, 2 * 8 * 4);
  EXPECT_EQ(b.global_batch, 2 * 8 * 4);
  EXPECT_EQ(a.tokens, b.tokens);
  // More gradient accumulation: the same number of gradient reductions per step.
  const Measured more =
      simulate(scenario(base, {{"parallel.tp", "2"}, {"parallel.pp", "2"}, {"training.grad_accum", "16"}}));
  EXPECT_EQ(more.dp_reductions, a.dp_reductions);
  EXPECT_GT(a.dp_reductions, 0);
}

TEST(StepSimulation, ReducedEqualsFullSimulation) {
  // Symmetry between replicas and TP ranks (DESIGN.md): the reduced simulation must equal
  // the one that simulates every replica and every collective. Under Megatron-Core's order
  // (the default) both replicas' stage-0 TP groups share node 0 and their data-parallel
  // pairs cross the same NVLink ports; TP collectives beside a gradient reduction are
  // simulated, not reused (StageTraffic::gradient_traffic_running), else the reduced step came
  // out 1.1 % short. The former order tp-cp-pp-dp puts one replica's stages on each node.
  const Settings base{{"model.preset", "llama3-8b"}, {"model.layers", "8"}, {"model.seq_len", "2048"},
                      {"training.grad_accum", "4"},  {"parallel.tp", "4"},  {"parallel.pp", "2"},
                      {"cluster.nodes", "2"}};
  for (const char* order : {"tp-cp-ep-dp-pp", "tp-cp-pp-dp"})
    for (const char* fabric : {"fat-tree", "rail-optimized"}) {
      const Scenario s = scenario(base, {{"cluster.fabric", fabric}, {"parallel.order", order}});
      const Measured reduced = simulate(s, true);
      const Measured full = simulate(s, false);
      EXPECT_NEAR(reduced.step_time_s / full.step_time_s, 1.0, 1e-6) << fabric << " " << order;
    }
}

TEST(StepSimulation, SameScenarioSameResult) {
  const Scenario s = scenario({{"model.preset", "llama3-8b"},
                               {"model.seq_len", "2048"},
                               {"training.grad_accum", "4"},
                               {"parallel.tp", "4"},
                               {"parallel.pp", "2"},
                               {"cluster.nodes", "2"}});
  const Measured a = simulate(s);
  const Measured b = simulate(s);
  EXPECT_EQ(a.step_time_s, b.step_time_s);
  EXPECT_EQ(a.bubble, b.bubble);
  EXPECT_EQ(a.energy, b.energy);
}

TEST(StepSimulation, DataLoadingHiddenWhenPrefetchKeepsUp) {
  Settings base = equal_stages(2, 4, 8);
  const Measured free = simulate(scenario(base));
  // Loading a micro-batch takes less than a forward + backward: hidden.
  const Measured hidden = simulate(scenario(base, {{"training.sample_load_time", "1ms"}}));
  EXPECT_NEAR(hidden.step_time_s / free.step_time_s, 1.0, 0.01);
  // Loading takes far longer than compute: exposed, and it shows as data time.
  const Measured slow = simulate(scenario(base, {{"training.sample_load_time", "200ms"}}));
  EXPECT_GT(slow.step_time_s, 1.5 * free.step_time_s);
  EXPECT_GT(slow.data_s, 0.2 * slow.step_time_s);
}

TEST(StepSimulation, PowerIsBetweenIdleAndTdp) {
  const Scenario s = scenario(equal_stages(4, 8, 8));
  const Measured m = simulate(s);
  const double gpus = s.cluster.total_gpus();
  EXPECT_GT(m.power, gpus * s.cluster.gpu.idle_power_w);
  EXPECT_LT(m.power, gpus * s.cluster.gpu.tdp_w);
  EXPECT_NEAR(m.energy, m.power * m.step_time_s, 1e-6 * m.energy);
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

// Sums what an observer sees, per stream.
class SummingObserver final : public StepObserver {
 public:
  void on_activity(const ActivityRecord& r) override {
    seconds[static_cast<size_t>(r.stream)] += r.end_s - r.start_s;
    // A forward pass is reported in pieces between its layers' TP collectives: count passes.
    if (r.kind == "forward") forwards += passes.insert({r.rank, r.microbatch, r.chunk}).second ? 1 : 0;
    if (r.end_s < r.start_s) ++inverted;
  }
  void on_step(int, double start_s, double end_s) override { step_s += end_s - start_s; }
  std::array<double, 5> seconds{};
  int forwards = 0;
  int inverted = 0;
  double step_s = 0;
  std::set<std::array<int, 3>> passes;  // rank, micro-batch, chunk
};

TEST(StepSimulation, ObserverSeesEveryActivity) {
  const Scenario s = scenario({{"model.preset", "llama3-8b"},
                               {"model.seq_len", "2048"},
                               {"training.grad_accum", "4"},
                               {"parallel.tp", "4"},
                               {"parallel.pp", "2"},
                               {"cluster.nodes", "2"}});
  const std::vector<double> v = engine::test::run_isolated([&] {
    const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
    SummingObserver observer;
    StepOptions options;
    options.observer = &observer;
    const StepResult r = simulate_step(s, compute, options);
    const StepBreakdown& b = r.breakdown_s;
    // The observer's compute and TP time per stage, averaged over the 2 stages, is the breakdown's.
    return std::vector<double>{observer.seconds[0] / 2,
                               b.forward + b.backward + b.recompute + b.optimizer,
                               observer.seconds[1] / 2,
                               b.tp_comm,
                               static_cast<double>(observer.forwards),
                               observer.step_s,
                               r.step_time_s,
                               static_cast<double>(observer.inverted)};
  });
  EXPECT_NEAR(v[0], v[1], 1e-9 * v[1]);
  EXPECT_NEAR(v[2], v[3], 1e-9 * v[3] + 1e-12);
  EXPECT_EQ(v[4], 4 * 2);  // 4 micro-batches x 2 stages
  EXPECT_NEAR(v[5], v[6], 1e-12);
  EXPECT_EQ(v[7], 0);
}

// Each layer's TP collectives run where the layer needs them, between the layers' compute
// (Megatron-LM: an all-reduce after attention and one after the MLP), not after the pass's
// compute: rank 0's first forward pass alternates compute and all-reduce records, 2 per layer.
class RankZeroRecords final : public StepObserver {
 public:
  void on_activity(const ActivityRecord& r) override {
    if (r.rank == 0 && r.microbatch == 0 && r.step == 0) records.push_back(r);
  }
  void on_step(int, double, double) override {}
  std::vector<ActivityRecord> records;
};

TEST(StepSimulation, TpCollectivesRunBetweenTheLayersCompute) {
  constexpr int k_layers = 4;
  const Scenario s = scenario({{"model.preset", "llama3-8b"},
                               {"model.layers", std::to_string(k_layers)},
                               {"model.seq_len", "2048"},
                               {"training.grad_accum", "2"},
                               {"parallel.tp", "2"},
                               {"parallel.sequence_parallel", "false"},
                               {"cluster.nodes", "1"},
                               {"cluster.gpus_per_node", "2"}});
  const std::vector<double> v = engine::test::run_isolated([&] {
    const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
    RankZeroRecords observer;
    StepOptions options;
    options.observer = &observer;
    simulate_step(s, compute, options);
    std::vector<ActivityRecord> forward;
    for (const ActivityRecord& r : observer.records)
      if (r.kind == "forward" || r.kind.rfind("tp_", 0) == 0) forward.push_back(r);
    std::stable_sort(forward.begin(), forward.end(),
                     [](const ActivityRecord& a, const ActivityRecord& b) { return a.start_s < b.start_s; });
    // The forward pass: up to the first record after which a backward begins.
    double backward_start = 1e300;
    for (const ActivityRecord& r : observer.records)
      if (r.kind == "backward") backward_start = std::min(backward_start, r.start_s);
    double switches = 0, all_reduces = 0, overlapping = 0;
    for (size_t i = 0; i < forward.size(); ++i) {
      if (forward[i].start_s >= backward_start) break;
      const bool tp = forward[i].stream == ActivityStream::tp_comm;
      all_reduces += tp ? 1 : 0;
      if (i > 0 && tp && forward[i - 1].stream == ActivityStream::compute) ++switches;
      if (i > 0 && forward[i].start_s < forward[i - 1].end_s - 1e-12) ++overlapping;
    }
    return std::vector<double>{switches, all_reduces, overlapping};
  });
  // 2 all-reduces per layer, each after its share of compute; plus the embedding's.
  EXPECT_EQ(v[1], 2 * k_layers + 1);
  EXPECT_GE(v[0], 2 * k_layers);
  EXPECT_EQ(v[2], 0);  // blocking: nothing runs beside them
}

}  // namespace
}  // namespace trainsim
