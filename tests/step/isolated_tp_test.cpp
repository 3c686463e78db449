// --full (symmetry not reduced) with the collectives of TP groups whose NVLink ports carry
// nothing else reused (sim/step/isolated_tp_groups.hpp): which groups qualify, and the step
// against the one where every TP collective runs, within 1e-9 (the engine advances an
// action's remaining work at every event, so a reused duration agrees to rounding). Each
// simulation runs in a forked child (one SimGrid engine per process).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/engine/platform.hpp"
#include "sim/step/isolated_tp_groups.hpp"
#include "sim/step/step_simulation.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

// 8 nodes of 8 GPUs: TP 8 fills a node, the pipeline's 2 stages and 4 replicas lie across
// nodes on one rail each.
const Settings k_whole_node{{"model.preset", "llama3-8b"}, {"model.layers", "8"},
                            {"model.seq_len", "2048"},     {"training.grad_accum", "4"},
                            {"parallel.tp", "8"},          {"parallel.pp", "2"},
                            {"parallel.zero", "1"},        {"parallel.overlap_param_gather", "true"},
                            {"cluster.nodes", "8"},        {"cluster.fabric", "rail-optimized"}};

// How many ranks' TP groups are isolated.
long isolated_ranks(const Scenario& s) {
  const engine::Platform platform = engine::Platform::without_simgrid(s.cluster);
  const RankMapping mapping(s.parallel, s.cluster);
  std::vector<bool> links;
  mark_links_beyond_tp(s, mapping, platform, links);
  const std::vector<bool> isolated = isolated_tp_groups(mapping, platform, links);
  return std::count(isolated.begin(), isolated.end(), true);
}

TEST(IsolatedTp, GroupsWhoseNvlinkPortsCarryNothingElse) {
  // Every other message goes NIC to NIC on the sender's own rail: every group.
  EXPECT_EQ(isolated_ranks(scenario(k_whole_node)), 64);
  EXPECT_EQ(isolated_ranks(scenario(k_whole_node, {{"cluster.fabric", "fat-tree"}})), 64);
  EXPECT_EQ(isolated_ranks(scenario(k_whole_node, {{"cluster.nics_per_node", "4"}})), 64);
  // Context-parallel peers and experts' all-to-alls across nodes, each on one rail.
  EXPECT_EQ(isolated_ranks(scenario(k_whole_node, {{"model.seq_len", "8192"}, {"parallel.cp", "2"}})), 64);
  EXPECT_EQ(isolated_ranks(scenario(testing::small_mixtral(8, 16), {{"parallel.tp", "8"}})), 128);
  // Two TP groups a node: the pipeline's two stages meet in it (the default order), or its
  // data-parallel ranks do (stages outermost, or no pipeline): none.
  EXPECT_EQ(isolated_ranks(scenario(k_whole_node, {{"parallel.tp", "4"}})), 0);
  EXPECT_EQ(isolated_ranks(scenario(k_whole_node, {{"parallel.tp", "4"}, {"parallel.order", "tp-cp-dp-pp"}})), 0);
  EXPECT_EQ(isolated_ranks(scenario(k_whole_node, {{"parallel.tp", "4"}, {"parallel.pp", "1"}})), 0);
  // A TP group across two nodes talks over NICs.
  EXPECT_EQ(isolated_ranks(scenario(k_whole_node, {{"cluster.gpus_per_node", "4"}, {"cluster.nodes", "16"}})), 0);
  // The experts' all-to-all inside the node (TP 2: its EP peers share the node).
  EXPECT_EQ(isolated_ranks(scenario(testing::small_mixtral(8, 16), {{"parallel.pp", "1"}})), 0);
}

// The step under --full with the isolated groups' collectives reused and with every one
// run: each output within 1e-9.
void expect_reuse_changes_nothing(const Scenario& s, const std::string& what) {
  StepOptions reuse;
  reuse.reduce_symmetry = false;
  StepOptions every = reuse;
  every.reuse_isolated_tp = false;
  const std::vector<double> a = testing::step_outputs(s, reuse);
  const std::vector<double> b = testing::step_outputs(s, every);
  ASSERT_GT(a.front(), 0) << what;
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], 1e-9 * std::max(1.0, std::abs(b[i]))) << what << ", output " << i;
}

TEST(IsolatedTp, FullStepEqualsEveryCollectiveRunOnEveryLayout) {
  for (const testing::NamedScenario& layout : testing::network_layouts(k_whole_node, 16))
    expect_reuse_changes_nothing(layout.scenario, layout.what);
  expect_reuse_changes_nothing(scenario(testing::small_mixtral(8, 16), {{"parallel.tp", "8"}}),
                               "experts across nodes at TP 8");
}

TEST(IsolatedTp, FullStepWithSlowPartsEqualsEveryCollectiveRun) {
  expect_reuse_changes_nothing(scenario(k_whole_node, {{"variations.slow_gpu_ids", "5+40"},
                                                       {"variations.slow_gpu_speed", "0.8"},
                                                       {"variations.slow_nic_ids", "17"},
                                                       {"variations.slow_nic_speed", "0.5"}}),
                               "slow GPUs and a slow NIC");
  expect_reuse_changes_nothing(scenario(k_whole_node, {{"parallel.tp_comm_overlap", "true"},
                                                       {"parallel.sequence_parallel", "true"},
                                                       {"parallel.schedule", "interleaved"},
                                                       {"parallel.virtual_stages", "2"}}),
                               "TP overlap, interleaved");
}

}  // namespace
}  // namespace trainsim
