// Megatron FSDP (parallel.fsdp = megatron) against trainsim's ZeRO: the same gathers where
// the two agree, a reduce-scatter per unit in every micro-batch where they do not, experts
// over their own group, HSDP's outer all-reduce once per step, and its buffers in memory.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/memory_budget.hpp"
#include "sim/compute/roofline_compute_model.hpp"
#include "sim/step/step_simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

struct Result {
  double step_s, dp_bytes, zero_bytes, zero_comm;
};

Result simulate(const Scenario& s) {
  const std::vector<double> v = engine::test::run_isolated([&] {
    const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
    const StepResult r = simulate_step(s, compute);
    return std::vector<double>{r.step_time_s, r.comm_bytes_per_gpu.dp, r.comm_bytes_per_gpu.zero,
                               r.breakdown_s.zero_comm};
  });
  return {v[0], v[1], v[2], v[3]};
}

// A small dense model on one DGX H100 (dp 8) whose embedding is negligible: the stage's
// parameters are its layers', so Megatron FSDP's units (the stage's weights over its layers)
// are trainsim's one-layer units.
const Settings k_small{
    {"model.layers", "4"},  {"model.hidden", "2048"},  {"model.heads", "16"},           {"model.ffn_hidden", "8192"},
    {"model.vocab", "8"},   {"model.seq_len", "2048"}, {"training.micro_batch", "1"},   {"training.grad_accum", "1"},
    {"cluster.nodes", "1"}, {"parallel.zero", "3"},    {"parallel.zero3_prefetch", "1"}};
const Settings k_megatron{{"parallel.fsdp", "megatron"}};

Settings with(Settings base, const Settings& extra) {
  for (const auto& kv : extra) base.push_back(kv);
  return base;
}

TEST(MegatronFsdp, OneMicroBatchMatchesZero3WithOneLayerUnits) {
  // One micro-batch: both gather each layer one ahead and reduce-scatter each layer's
  // gradients as its backward ends; nothing tells them apart but the rounding of a unit.
  const Result zero3 = simulate(scenario(k_small));
  const Result megatron = simulate(scenario(k_small, k_megatron));
  EXPECT_GT(zero3.zero_bytes, 0);
  EXPECT_NEAR(megatron.zero_bytes, zero3.zero_bytes, 1e-3 * zero3.zero_bytes);
  EXPECT_NEAR(megatron.dp_bytes, zero3.dp_bytes, 1e-3 * zero3.dp_bytes);
  EXPECT_NEAR(megatron.step_s, zero3.step_s, 1e-3 * zero3.step_s);
}

TEST(MegatronFsdp, ReducesEveryMicroBatchWhereZero3ReducesTheLast) {
  // Its gradient buffer is sharded: each micro-batch's unit gradients are reduce-scattered
  // into it, so four micro-batches move four times the reduction bytes, and gather the same.
  const Settings four = with(k_small, {{"training.grad_accum", "4"}});
  const Result zero3 = simulate(scenario(four));
  const Result megatron = simulate(scenario(four, k_megatron));
  EXPECT_NEAR(megatron.dp_bytes, 4 * zero3.dp_bytes, 1e-9 * megatron.dp_bytes);
  EXPECT_NEAR(megatron.zero_bytes, zero3.zero_bytes, 1e-3 * zero3.zero_bytes);
  EXPECT_GE(megatron.step_s, zero3.step_s);
  // ZeRO-2 (optim_grads) likewise, without the parameter gathers of the passes.
  const Settings zero2 = with(four, {{"parallel.zero", "2"}});
  const Result z2 = simulate(scenario(zero2));
  const Result m2 = simulate(scenario(zero2, k_megatron));
  EXPECT_NEAR(m2.dp_bytes, 4 * z2.dp_bytes, 1e-9 * m2.dp_bytes);
  EXPECT_EQ(m2.zero_bytes, z2.zero_bytes);  // the updated parameters' all-gather only
}

TEST(MegatronFsdp, HybridShardingAllReducesAcrossGroupsOncePerStep) {
  // Two shard groups of 4 (num_distributed_optimizer_instances = 2), four micro-batches:
  // four reduce-scatters in the group, one all-reduce of the shard across the groups.
  const Settings hsdp = with(k_small, {{"training.grad_accum", "4"}, {"parallel.zero_shard_size", "4"}});
  const Result one = simulate(scenario(with(k_small, {{"parallel.zero_shard_size", "4"}}), k_megatron));
  const Result four = simulate(scenario(hsdp, k_megatron));
  // One micro-batch moves P (4-1)/4 in the group and P/4 (2-1)/2 x 2 across: P x 1.
  const double p = one.dp_bytes;
  EXPECT_NEAR(four.dp_bytes, 4 * p * 0.75 + p * 0.25, 1e-9 * four.dp_bytes);
}

TEST(MegatronFsdp, GathersExpertsOverTheirOwnGroup) {
  // Mixtral-like layers (a negligible embedding), EP 8 on one node: each GPU holds its expert
  // whole (expert dp 1), so Megatron FSDP gathers only the dense parameters (attention,
  // router, norms: 42 M of a layer's 218 M on a GPU); trainsim's ZeRO-3 gathers the whole
  // layer over the dense group.
  const Settings moe{{"model.preset", "mixtral-8x7b"}, {"model.layers", "2"},        {"model.vocab", "8"},
                     {"model.seq_len", "2048"},        {"training.grad_accum", "1"}, {"parallel.ep", "8"},
                     {"cluster.nodes", "1"},           {"parallel.zero", "3"},       {"parallel.zero3_prefetch", "1"}};
  const Result zero3 = simulate(scenario(moe));
  const Result megatron = simulate(scenario(moe, k_megatron));
  EXPECT_GT(megatron.zero_bytes, 0);
  EXPECT_LT(megatron.zero_bytes, 0.25 * zero3.zero_bytes);
  EXPECT_LE(megatron.zero_comm, zero3.zero_comm);
}

TEST(MegatronFsdp, KeepsTwoUnitsOfParametersAndGradientsInPlaceOfTheBuckets) {
  const Scenario zero3 = scenario(k_small);
  const Scenario megatron = scenario(k_small, k_megatron);
  const auto comm = [](const Scenario& s) {
    return estimate_memory(s.model, s.training, s.parallel, s.cluster.gpu.memory_bytes).stages[0].bytes.comm_buffers;
  };
  // ZeRO-3: two gathered layers and two DDP buckets; Megatron FSDP: two gathered layers and
  // two layers' gradients (fp32 here: 4 bytes a parameter).
  const double layer = 4.0 * 2048 * 2048 + 3.0 * 2048 * 8192 + 2 * 2048.0;  // attention, SwiGLU, norms
  const double expected_difference = 2.0 * layer * 4.0 - 2.0 * zero3.training.dp_bucket_bytes;
  EXPECT_NEAR(comm(megatron) - comm(zero3), expected_difference, 1e-6 * comm(zero3));
}

}  // namespace
}  // namespace trainsim
