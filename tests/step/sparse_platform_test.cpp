// The step on a platform that builds only the endpoints it can touch
// (engine/endpoint_selection.hpp) against the whole cluster's platform: the same step,
// breakdown and activity records, to the bit, on every fabric and parallel axis that puts
// traffic on the network. Each simulation runs in a forked child (one SimGrid engine per
// process).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/scenario/scenario_loader.hpp"
#include "sim/step/step_simulation.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

void expect_sparse_equals_whole(const Scenario& s, const std::string& what) {
  testing::expect_same_with_and_without(s, &StepOptions::sparse_platform, what);
}

// 8 nodes of 8 GPUs: TP 4 inside a node, pipeline and data parallelism across nodes.
const Settings k_base{{"model.preset", "llama3-8b"},      {"model.layers", "8"},
                      {"model.seq_len", "2048"},          {"training.grad_accum", "4"},
                      {"parallel.tp", "4"},               {"parallel.pp", "2"},
                      {"parallel.zero", "1"},             {"parallel.overlap_param_gather", "true"},
                      {"cluster.nodes", "8"},             {"cluster.fabric", "rail-optimized"}};

TEST(SparsePlatform, StepEqualsTheWholeClustersOnEveryFabric) {
  expect_sparse_equals_whole(scenario(k_base), "rail-optimized");
  expect_sparse_equals_whole(scenario(k_base, {{"parallel.schedule", "interleaved"}, {"parallel.virtual_stages", "2"}}),
                             "interleaved");
  expect_sparse_equals_whole(scenario(k_base, {{"cluster.fabric", "fat-tree"}}), "fat-tree");
  // Oversubscribed: every replica's pipeline transfers and every TP member's reductions run.
  expect_sparse_equals_whole(scenario(k_base, {{"cluster.fabric", "fat-tree"}, {"cluster.oversubscription", "2"}}),
                             "oversubscribed");
  // Two GPUs per NIC: every TP member's reductions run, GPUs share their NIC's rail.
  expect_sparse_equals_whole(scenario(k_base, {{"cluster.nics_per_node", "4"}}), "4 nics per node");
  // Rank order with data parallelism inside a node: reductions mix local indices (PXN).
  expect_sparse_equals_whole(scenario(k_base, {{"parallel.tp", "2"}, {"parallel.order", "tp-cp-dp-pp"}}),
                             "tp-cp-dp-pp");
}

TEST(SparsePlatform, StepEqualsTheWholeClustersOnEveryAxis) {
  expect_sparse_equals_whole(scenario(k_base, {{"parallel.zero", "3"}, {"parallel.zero_shard_size", "4"}}), "hsdp");
  expect_sparse_equals_whole(scenario(k_base, {{"model.seq_len", "8192"}, {"parallel.cp", "2"}, {"parallel.tp", "8"}}),
                             "context parallel across nodes");
  expect_sparse_equals_whole(scenario({{"model.preset", "mixtral-8x7b"},
                                       {"model.layers", "4"},
                                       {"model.seq_len", "2048"},
                                       {"training.grad_accum", "2"},
                                       {"parallel.tp", "2"},
                                       {"parallel.ep", "8"},
                                       {"parallel.pp", "2"},
                                       {"cluster.nodes", "8"},
                                       {"cluster.fabric", "rail-optimized"}}),
                             "experts across nodes");
}

TEST(SparsePlatform, StepEqualsTheWholeClustersAcrossNvlinkDomains) {
  expect_sparse_equals_whole(scenario(k_base, {{"cluster.preset", "gb200-nvl72"},
                                               {"cluster.nodes", "36"},
                                               {"parallel.tp", "4"},
                                               {"parallel.pp", "4"}}),
                             "gb200-nvl72");
}

// Llama 3 405B's step at 131,072 GPUs (a reduced form of trainsim-bench-step's sizes): with
// the platform built for what the step touches it simulates in seconds, and weak scaling
// keeps the step within 1 % of the 16,384-GPU one (more replicas lengthen only the gradient
// reductions' rings, which the backward hides).
TEST(SparsePlatform, LlamaStepOn131072GpusSimulates) {
  const std::string file = std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/examples/llama3-405b-16k-h100.ini";
  StepOptions options;
  const double base = testing::step_outputs(load_scenario(file), options).front();
  const double large = testing::step_outputs(load_scenario(file, {"cluster.nodes=16384"}), options).front();
  EXPECT_GT(large, base);
  EXPECT_NEAR(large / base, 1.0, 0.01);
}

}  // namespace
}  // namespace trainsim
