// The step-time lower bound (sim/step/step_bound.hpp) against the simulation: never above
// the simulated step, on every kind of layout, and close to it where compute dominates.

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "sim/compute/roofline_compute_model.hpp"
#include "sim/engine/platform.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_bound.hpp"
#include "sim/step/step_simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

// {bound, simulated step time} of `s` on the datasheet roofline.
std::vector<double> bound_and_step(const Scenario& s) {
  return engine::test::run_isolated([&] {
    const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
    return std::vector<double>{step_time_lower_bound_s(s, compute), simulate_step(s, compute).step_time_s};
  });
}

// 64 H100s: TP 2, PP 4, DP 8, eight micro-batches of a small Llama.
const Settings k_base{{"model.preset", "llama3-8b"}, {"model.layers", "8"},    {"model.seq_len", "2048"},
                      {"training.grad_accum", "8"},  {"parallel.tp", "2"},     {"parallel.pp", "4"},
                      {"parallel.zero", "1"},        {"cluster.nodes", "8"},   {"cluster.fabric", "rail-optimized"}};

TEST(StepBound, NeverAboveTheSimulatedStep) {
  std::vector<testing::NamedScenario> layouts = testing::network_layouts(k_base, 4);
  const auto add = [&](const std::string& what, const Settings& change) {
    layouts.push_back({what, scenario(k_base, change)});
  };
  add("gpipe", {{"parallel.schedule", "gpipe"}});
  add("zero-bubble", {{"parallel.schedule", "zb-h1"}});
  add("interleaved x4", {{"parallel.schedule", "interleaved"}, {"parallel.virtual_stages", "2"},
                         {"training.grad_accum", "16"}});
  add("full recomputation", {{"training.recompute", "full"}});
  add("selective recomputation", {{"training.recompute", "selective"}});
  add("tp overlap", {{"parallel.sequence_parallel", "true"}, {"parallel.tp_comm_overlap", "true"}});
  add("zero-3", {{"parallel.zero", "3"}, {"parallel.pp", "1"}, {"parallel.tp", "1"}});
  add("megatron fsdp", {{"parallel.zero", "3"}, {"parallel.fsdp", "megatron"}, {"parallel.pp", "2"}});
  add("activation offload", {{"training.offload_activations", "1"}, {"parallel.pp", "2"}});
  add("grace host", {{"cluster.preset", "gb200-nvl72"}, {"cluster.nodes", "8"}, {"parallel.tp", "4"}});
  add("two steps", {{"run.steps", "2"}});
  add("no pipeline", {{"parallel.pp", "1"}});
  add("moe, host-bound", {{"model.preset", "qwen3-30b-a3b"}, {"model.layers", "4"}, {"parallel.tp", "1"},
                          {"parallel.ep", "8"}, {"parallel.pp", "2"}, {"parallel.order", "tp-cp-dp-pp"},
                          {"training.kernel_host_time", "200us"}});
  for (const testing::NamedScenario& layout : layouts) {
    const std::vector<double> r = bound_and_step(layout.scenario);
    EXPECT_GT(r[0], 0) << layout.what;
    EXPECT_LE(r[0], r[1] * (1 + 1e-12)) << layout.what << ": bound " << r[0] << " s, step " << r[1] << " s";
  }
}

TEST(StepBound, CountsTheDataParallelTrafficOfEachDomainsNics) {
  // ZeRO-3 over 64 GPUs with one short micro-batch: the gathers and the gradient reduction cross
  // the nodes (or racks) and take longer than the compute; the bound counts their volume.
  const Settings zero3{{"model.preset", "llama3-8b"}, {"model.layers", "8"},  {"model.seq_len", "512"},
                       {"training.grad_accum", "1"},  {"parallel.tp", "1"},   {"parallel.pp", "1"},
                       {"parallel.zero", "3"},        {"cluster.nodes", "8"}, {"cluster.fabric", "rail-optimized"}};
  const double compute_only = bound_and_step(scenario(zero3, {{"cluster.fabric", "ideal"}}))[0];
  for (const auto& [what, change] : std::vector<std::pair<std::string, Settings>>{
           {"rail-optimized", {}},
           {"fat-tree, oversubscribed", {{"cluster.fabric", "fat-tree"}, {"cluster.oversubscription", "2"}}},
           {"4 nics per node", {{"cluster.nics_per_node", "4"}}},
           {"sharp", {{"cluster.fabric", "fat-tree"}, {"cluster.sharp", "true"}}},
           {"zero-1", {{"parallel.zero", "1"}}},
           {"megatron fsdp", {{"parallel.fsdp", "megatron"}}},
           {"tp 2, pp 2", {{"parallel.tp", "2"}, {"parallel.pp", "2"}, {"training.grad_accum", "4"}}},
           {"tp 4, pp 2: two stages a node",
            {{"parallel.tp", "4"}, {"parallel.pp", "2"}, {"training.grad_accum", "4"}}},
           {"tp 8, pp 4, interleaved",
            {{"parallel.tp", "8"},
             {"parallel.pp", "4"},
             {"training.grad_accum", "8"},
             {"parallel.schedule", "interleaved"},
             {"parallel.virtual_stages", "2"},
             {"cluster.nodes", "16"}}},
           {"gb200-nvl72, 4 racks", {{"cluster.preset", "gb200-nvl72"}, {"cluster.nodes", "18"}}}}) {
    const std::vector<double> r = bound_and_step(scenario(zero3, change));
    EXPECT_LE(r[0], r[1] * (1 + 1e-12)) << what << ": bound " << r[0] << " s, step " << r[1] << " s";
    if (what == "rail-optimized") {
      EXPECT_GT(r[0], 2 * compute_only) << r[0] << " against " << compute_only;
    }
  }
}

TEST(StepBound, ThePipelinesFillAndDrainCount) {
  // Compute-bound (an ideal fabric): the bound is most of the step. With one micro-batch the
  // step is the chain through the four stages and back, which the bound counts whole (the
  // busiest stage's own passes would be a quarter of it). The host at the A100 trace's costs
  // (training.host_stack_factor 1): on the datasheet roofline these 2,048-token kernels are
  // short enough for Megatron-Core's fitted host stack (2.3x) to bind them, which the bound
  // does not count.
  for (const char* microbatches : {"8", "1"}) {
    const std::vector<double> r = bound_and_step(scenario(
        k_base,
        {{"cluster.fabric", "ideal"}, {"training.grad_accum", microbatches}, {"training.host_stack_factor", "1"}}));
    EXPECT_GT(r[0], 0.85 * r[1]) << microbatches << " micro-batches: bound " << r[0] << ", step " << r[1];
    EXPECT_LE(r[0], r[1] * (1 + 1e-12)) << microbatches;
  }
}

// 64 H100s, TP 8 (one node a TP group), one or two micro-batches per replica: each stage's
// gradient reduction across the nodes is as long as its compute or longer, and most of it
// follows the last backward pass (Megatron-LM reduces a chunk's gradients in its last
// micro-batch's backward).
const Settings k_reducing{{"model.preset", "llama3-8b"}, {"model.layers", "8"},  {"model.seq_len", "2048"},
                          {"training.grad_accum", "1"},  {"parallel.tp", "8"},   {"parallel.pp", "1"},
                          {"parallel.zero", "0"},        {"cluster.nodes", "8"}, {"cluster.fabric", "rail-optimized"}};

TEST(StepBound, NeverAboveTheSimulatedStepWhereTheReductionFollowsTheLastBackward) {
  for (const auto& [what, change] : std::vector<std::pair<std::string, Settings>>{
           {"pp 1, zero 0", {}},
           {"pp 1, zero 1", {{"parallel.zero", "1"}}},
           {"pp 1, zero 2, overlapped", {{"parallel.zero", "2"}, {"parallel.overlap_grad_reduce", "true"}}},
           {"pp 1, zero 3", {{"parallel.zero", "3"}}},
           {"pp 1, two micro-batches", {{"training.grad_accum", "2"}}},
           {"pp 1, small buckets", {{"training.dp_bucket", "10MB"}, {"parallel.overlap_grad_reduce", "true"}}},
           {"pp 1, zero 1, gather overlapped",
            {{"parallel.zero", "1"}, {"parallel.overlap_grad_reduce", "true"}, {"parallel.overlap_param_gather", "true"}}},
           {"pp 1, zero 1, offload", {{"parallel.zero", "1"}, {"training.offload", "cpu"}}},
           {"pp 2, 1f1b", {{"parallel.pp", "2"}, {"training.grad_accum", "2"}}},
           {"pp 2, gpipe", {{"parallel.pp", "2"}, {"training.grad_accum", "2"}, {"parallel.schedule", "gpipe"}}},
           {"pp 2, interleaved",
            {{"parallel.pp", "2"},
             {"training.grad_accum", "2"},
             {"parallel.schedule", "interleaved"},
             {"parallel.virtual_stages", "2"}}},
           {"pp 2, zero-bubble", {{"parallel.pp", "2"}, {"training.grad_accum", "2"}, {"parallel.schedule", "zb-h1"}}},
           {"pp 2, full recomputation", {{"parallel.pp", "2"}, {"training.grad_accum", "2"}, {"training.recompute", "full"}}},
           {"cp 2", {{"model.seq_len", "8192"}, {"parallel.cp", "2"}}},
           {"fat-tree, oversubscribed", {{"cluster.fabric", "fat-tree"}, {"cluster.oversubscription", "2"}}},
           {"4 nics per node", {{"cluster.nics_per_node", "4"}}},
           {"tp 4, two groups a node", {{"parallel.tp", "4"}}},
           {"hsdp", {{"parallel.zero", "3"}, {"parallel.zero_shard_size", "4"}}},
           {"gb200-nvl72, 2 racks", {{"cluster.preset", "gb200-nvl72"}, {"cluster.nodes", "36"}, {"parallel.tp", "4"}}}}) {
    const std::vector<double> r = bound_and_step(scenario(k_reducing, change));
    EXPECT_GT(r[0], 0) << what;
    EXPECT_LE(r[0], r[1] * (1 + 1e-12)) << what << ": bound " << r[0] << " s, step " << r[1] << " s";
  }
}

TEST(StepBound, CountsTheReductionAfterTheLastBackward) {
  // One stage, eight micro-batches: the last backward starts after the eight forwards and the
  // seven backwards before it, and the stage's whole gradients then leave each node through its
  // 8 NICs, 8 groups (one per TP rank) at once, each sending (m - 1)/m of them out of its node
  // (m = 8 nodes); under ZeRO-1 the updated parameters then come in the same way after the
  // optimizer. The bound counts those passes' kernels and that NIC time in a row, not the
  // larger of the two alone.
  for (const char* zero : {"0", "1"}) {
    const Scenario s = scenario(k_reducing, {{"training.grad_accum", "8"}, {"parallel.zero", zero}});
    const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
    const StepCosts costs = build_step_costs(s, compute, false);
    const engine::Platform platform = engine::Platform::without_simgrid(s.cluster);
    const double m = s.cluster.nodes;
    const StageCosts& stage = costs.stages[0];
    const double gathered = s.parallel.zero == 1 ? stage.dense_weight_bytes : 0.0;
    const double nic_s = (stage.dense_gradient_bytes + gathered) * (m - 1) / m / platform.nic_Bps();
    const ChunkCosts& chunk = stage.chunks[0];
    const double before_s = 8 * chunk.forward.compute_s + 7 * chunk.backward.compute_s;
    ASSERT_GT(before_s, 0.5 * nic_s) << zero;  // both weigh
    ASSERT_GT(nic_s, 0.2 * before_s) << zero;
    const std::vector<double> r = bound_and_step(s);
    EXPECT_GE(r[0], (before_s + nic_s) * (1 - 1e-12))
        << "zero " << zero << ": passes before " << before_s << " s, NICs " << nic_s << " s";
    EXPECT_LE(r[0], r[1] * (1 + 1e-12)) << "zero " << zero << ": bound " << r[0] << " s, step " << r[1] << " s";
  }
}

TEST(StepBound, CountsTheFirstStagesReductionAfterTheLastBackwardComesBack) {
  // Two stages, two micro-batches: the last stage's passes start after the first micro-batch's
  // forward on stage 0 and end no earlier than its two forwards and two backwards after that;
  // the last micro-batch's backward then starts on stage 0, and stage 0's gradients leave its
  // nodes after it (m = 4 nodes a data-parallel group, one TP group a node).
  const Scenario s = scenario(k_reducing, {{"training.grad_accum", "2"}, {"parallel.pp", "2"}});
  const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
  const StepCosts costs = build_step_costs(s, compute, false);
  const engine::Platform platform = engine::Platform::without_simgrid(s.cluster);
  const double m = s.parallel.dp;
  ASSERT_EQ(m, 4);
  const ChunkCosts& first = costs.stages[0].chunks[0];
  const ChunkCosts& last = costs.stages[1].chunks[0];
  const double before_s = first.forward.compute_s + 2 * (last.forward.compute_s + last.backward.compute_s);
  const double nic_s = costs.stages[0].dense_gradient_bytes * (m - 1) / m / platform.nic_Bps();
  const std::vector<double> r = bound_and_step(s);
  EXPECT_GE(r[0], (before_s + nic_s) * (1 - 1e-12)) << "passes before " << before_s << " s, NICs " << nic_s << " s";
  EXPECT_LE(r[0], r[1] * (1 + 1e-12)) << "bound " << r[0] << " s, step " << r[1] << " s";
}

}  // namespace
}  // namespace trainsim
