// Slow GPUs and NICs ([variations]): which ones, which ranks they pace, which replicas stand
// for which, and the step simulated with one representative per class against every replica
// (--full).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/compute/roofline_compute_model.hpp"
#include "sim/step/replica_classes.hpp"
#include "sim/step/step_simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"
#include "topologies/fabric_layout.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/slow_parts.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

TEST(SlowGpus, DrawIsSeededDistinctAndNested) {
  VariationSpec v;
  v.slow_gpu_speed = 0.9;
  v.slow_gpu_count = 16;
  const std::vector<int> sixteen = slow_gpus(v, 1024, 7);
  ASSERT_EQ(sixteen.size(), 16u);
  EXPECT_TRUE(std::is_sorted(sixteen.begin(), sixteen.end()));
  EXPECT_EQ(std::adjacent_find(sixteen.begin(), sixteen.end()), sixteen.end());
  EXPECT_GE(sixteen.front(), 0);
  EXPECT_LT(sixteen.back(), 1024);
  EXPECT_EQ(slow_gpus(v, 1024, 7), sixteen);  // same seed, same GPUs
  EXPECT_NE(slow_gpus(v, 1024, 8), sixteen);
  // A smaller count keeps GPUs of the larger one (the shuffle's first draws).
  v.slow_gpu_count = 1;
  const std::vector<int> one = slow_gpus(v, 1024, 7);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_NE(std::find(sixteen.begin(), sixteen.end(), one[0]), sixteen.end());
  // Every GPU, once each.
  v.slow_gpu_count = 64;
  std::vector<int> all = slow_gpus(v, 64, 3);
  for (int g = 0; g < 64; ++g) EXPECT_EQ(all[static_cast<size_t>(g)], g);
  // At full speed nothing differs.
  v.slow_gpu_speed = 1.0;
  EXPECT_TRUE(slow_gpus(v, 64, 3).empty());
}

TEST(SlowNics, DrawIsSeededAndApartFromTheGpus) {
  VariationSpec v;
  v.slow_gpu_count = 8;
  v.slow_nic_count = 8;
  const std::vector<int> nics = slow_nics(v, 1024, 7);
  ASSERT_EQ(nics.size(), 8u);
  EXPECT_TRUE(std::is_sorted(nics.begin(), nics.end()));
  EXPECT_EQ(slow_nics(v, 1024, 7), nics);
  EXPECT_NE(slow_gpus(v, 1024, 7), nics);  // their own stream
  v.slow_nic_speed = 1.0;
  EXPECT_TRUE(slow_nics(v, 1024, 7).empty());
  v.slow_nic_speed = 0.5;
  v.slow_nic_count = 0;
  v.slow_nic_ids = {2, 70};
  EXPECT_EQ(slow_nics(v, 64, 7), (std::vector<int>{2}));
}

TEST(SlowGpus, ListedIdsPastTheClusterAreLeftOut) {
  VariationSpec v;
  v.slow_gpu_ids = {3, 17, 40};
  EXPECT_EQ(slow_gpus(v, 32, 1), (std::vector<int>{3, 17}));
}

const Settings k_dense{{"model.preset", "llama3-8b"}, {"model.layers", "8"},        {"model.seq_len", "2048"},
                       {"training.micro_batch", "1"}, {"training.grad_accum", "4"}, {"parallel.tp", "2"},
                       {"parallel.pp", "2"},          {"parallel.zero", "1"},       {"cluster.nodes", "2"}};

TEST(ReplicaClasses, ASlowGpuPacesItsTensorParallelGroupAndExpertPeers) {
  const Scenario dense = scenario(k_dense);
  const RankMapping dense_mapping(dense.parallel, dense.cluster);
  EXPECT_EQ(paced_ranks(dense_mapping, 5), (std::vector<int>{4, 5}));  // tp = 2
  const Scenario moe = scenario({{"model.preset", "mixtral-8x7b"},
                                 {"model.layers", "4"},
                                 {"parallel.tp", "1"},
                                 {"parallel.ep", "4"},
                                 {"cluster.nodes", "1"}});
  const RankMapping moe_mapping(moe.parallel, moe.cluster);
  EXPECT_EQ(paced_ranks(moe_mapping, 6), (std::vector<int>{4, 5, 6, 7}));  // its EP group
}

TEST(ReplicaClasses, OneRepresentativePerClass) {
  // tp 2 x pp 2 on 16 GPUs: dp 4. GPU 5 is TP rank 1 of replica 1's... stage the mapping says.
  const Scenario uniform = scenario(k_dense);
  const RankMapping mapping(uniform.parallel, uniform.cluster);
  const std::vector<ReplicaClass> one = replica_classes(uniform, mapping, uniform.cluster, true);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].members, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(one[0].stage_slowdown, (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(replica_classes(uniform, mapping, uniform.cluster, false).size(), 4u);  // --full: each its own

  // GPUs 5 and 7: TP rank 1 of stage 0 in replicas 2 and 3 (Megatron-Core's order: TP 2, then
  // DP 4, then PP 2).
  Scenario slow = scenario(k_dense, {{"variations.slow_gpu_ids", "5+7"}, {"variations.slow_gpu_speed", "0.8"}});
  EXPECT_EQ(replica_classes(slow, mapping, slow.cluster, true).size(), 1u);  // the parts not resolved: uniform
  slow.cluster = with_slow_parts(slow.cluster, slow.variations, slow.run.seed);
  EXPECT_EQ(slow.cluster.slow_gpus, (std::vector<int>{5, 7}));
  EXPECT_DOUBLE_EQ(slow.cluster.slow_gpu_speed, 0.8);
  const std::vector<ReplicaClass> classes = replica_classes(slow, mapping, slow.cluster, true);
  ASSERT_EQ(classes.size(), 2u);
  const int stage5 = mapping.coordinate(5, ParallelAxis::pp);
  const int stage7 = mapping.coordinate(7, ParallelAxis::pp);
  ASSERT_EQ(stage5, stage7);  // the same stage of two replicas: one class
  EXPECT_EQ(classes[0].members.size(), 2u);
  EXPECT_EQ(classes[1].members.size(), 2u);
  EXPECT_DOUBLE_EQ(classes[1].stage_slowdown[static_cast<size_t>(stage5)], 1.25);
  EXPECT_DOUBLE_EQ(classes[1].stage_slowdown[static_cast<size_t>(1 - stage5)], 1.0);
  EXPECT_EQ(classes[0].representative, 0);
}

struct Step {
  double step_time_s, dp_comm, zero_comm, straggler_wait, dp_bytes, slow_gpus, forward;
};

Step simulate(const Scenario& s, bool reduce = true) {
  const std::vector<double> v = testing::simulated_fields(s, reduce, [](const StepResult& r) {
    return std::vector<double>{r.step_time_s,        r.breakdown_s.dp_comm,   r.breakdown_s.zero_comm,
                               r.straggler_wait_s,   r.comm_bytes_per_gpu.dp, static_cast<double>(r.slow_gpus),
                               r.breakdown_s.forward};
  });
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
}

// Slow GPUs in one and in several replicas, in a TP group, beside pipeline stages, ZeRO-1's
// gather after the update, expert parallelism and context parallelism.
std::vector<std::pair<std::string, Scenario>> slow_gpu_cases(const Settings& change) {
  const auto with = [&](const Settings& s) { return testing::merged(s, change); };
  return {
      {"one slow GPU",
       scenario(k_dense, with({{"variations.slow_gpu_ids", "5"}, {"variations.slow_gpu_speed", "0.8"}}))},
      {"two slow replicas",
       scenario(k_dense, with({{"variations.slow_gpu_ids", "5+9"}, {"variations.slow_gpu_speed", "0.8"}}))},
      {"drawn", scenario(k_dense, with({{"variations.slow_gpus", "3"}, {"variations.slow_gpu_speed", "0.7"}}))},
      {"pp 1, zero 0", scenario(k_dense, with({{"variations.slow_gpu_ids", "2"},
                                               {"variations.slow_gpu_speed", "0.9"},
                                               {"parallel.pp", "1"},
                                               {"parallel.zero", "0"}}))},
      {"zero 3", scenario(k_dense, with({{"variations.slow_gpu_ids", "5"},
                                         {"variations.slow_gpu_speed", "0.8"},
                                         {"parallel.tp", "1"},
                                         {"parallel.zero", "3"}}))},
      {"context parallel", scenario(k_dense, with({{"variations.slow_gpu_ids", "6"},
                                                   {"variations.slow_gpu_speed", "0.8"},
                                                   {"model.seq_len", "8192"},
                                                   {"parallel.cp", "2"}}))},
      {"experts",
       scenario(with(testing::merged(testing::small_mixtral(4, 4),
                                     {{"variations.slow_gpu_ids", "20"}, {"variations.slow_gpu_speed", "0.8"}})))},
  };
}

TEST(SlowGpuStep, ReducedEqualsFullWithEveryKindOfCoupling) {
  // Gradients reduced after the backward: no collective is timed beside a reduction, so the
  // reduced simulation's once-timed TP and EP collectives are exact (step_simulation.hpp)
  // and one representative per class gives every replica's times.
  for (const auto& [what, s] : slow_gpu_cases({{"parallel.overlap_grad_reduce", "false"}})) {
    const Step reduced = simulate(s, true);
    const Step full = simulate(s, false);
    EXPECT_NEAR(reduced.step_time_s / full.step_time_s, 1.0, 1e-9) << what;
    EXPECT_NEAR(reduced.dp_comm / full.dp_comm, 1.0, 1e-9) << what;
    EXPECT_NEAR(reduced.zero_comm, full.zero_comm, 1e-9 * full.step_time_s) << what;
    EXPECT_NEAR(reduced.straggler_wait / full.straggler_wait, 1.0, 1e-9) << what;
    EXPECT_NEAR(reduced.dp_bytes / full.dp_bytes, 1.0, 1e-12) << what;
    EXPECT_GT(reduced.straggler_wait, 0) << what;
    EXPECT_GE(reduced.slow_gpus, 1) << what;
  }
  // Megatron FSDP reduces each unit's gradients as its backward ends, beside the next units'
  // gathers; without TP, pipeline or experts nothing is timed once: reduced equals --full.
  const Scenario fsdp = scenario(k_dense, {{"variations.slow_gpu_ids", "2"},
                                           {"variations.slow_gpu_speed", "0.8"},
                                           {"parallel.tp", "1"},
                                           {"parallel.pp", "1"},
                                           {"parallel.zero", "3"},
                                           {"parallel.fsdp", "megatron"}});
  const Step fsdp_reduced = simulate(fsdp, true);
  const Step fsdp_full = simulate(fsdp, false);
  EXPECT_NEAR(fsdp_reduced.step_time_s / fsdp_full.step_time_s, 1.0, 1e-9);
  EXPECT_NEAR(fsdp_reduced.zero_comm / fsdp_full.zero_comm, 1.0, 1e-9);
  EXPECT_GT(fsdp_reduced.straggler_wait, 0);
  // Uniform too: under --full each unit's gather runs once for the replicas, not once per
  // replica (they used to: a 70B GB200 FSDP step came out 6.8x the reduced one).
  for (const char* fsdp_kind : {"none", "megatron"}) {
    const Scenario uniform = scenario(
        k_dense, {{"parallel.tp", "1"}, {"parallel.pp", "1"}, {"parallel.zero", "3"}, {"parallel.fsdp", fsdp_kind}});
    const Step reduced = simulate(uniform, true);
    const Step full = simulate(uniform, false);
    EXPECT_NEAR(reduced.step_time_s / full.step_time_s, 1.0, 1e-9) << fsdp_kind;
    EXPECT_NEAR(reduced.zero_comm / full.zero_comm, 1.0, 1e-9) << fsdp_kind;
    EXPECT_EQ(full.straggler_wait, 0) << fsdp_kind;
  }
  // A slow last stage (GPU 3: stage 1 of replica 0) receives activations while its TP
  // all-reduces run; the reduced simulation times each TP collective once, alone: 0.05 %.
  const Scenario last = scenario(k_dense, {{"variations.slow_gpu_ids", "3"},
                                           {"variations.slow_gpu_speed", "0.8"},
                                           {"parallel.overlap_grad_reduce", "false"}});
  EXPECT_NEAR(simulate(last, true).step_time_s / simulate(last, false).step_time_s, 1.0, 5e-4);
}

TEST(SlowGpuStep, ReducedIsAsCloseToFullAsForAUniformClusterWithOverlap) {
  // Overlapped reductions: a collective timed once may have run beside one, which the reduced
  // simulation then reuses where it runs alone (within 1 % on dense layouts,
  // StepSimulation.ReducedEqualsFullSimulation; 3.9 % on the experts case, whose all-to-alls
  // share NVLink with the reductions). Slow GPUs add at most 1.5 points to that.
  for (const auto& [what, s] : slow_gpu_cases({})) {
    Scenario uniform = s;
    uniform.variations = VariationSpec{};
    const double slow_ratio = simulate(s, true).step_time_s / simulate(s, false).step_time_s;
    const double uniform_ratio = simulate(uniform, true).step_time_s / simulate(uniform, false).step_time_s;
    EXPECT_NEAR(slow_ratio, uniform_ratio, 0.015) << what;
    if (what != "experts") {
      EXPECT_NEAR(slow_ratio, 1.0, 0.01) << what;
    }
  }
}

TEST(SlowGpuStep, ASlowGpuCostsAtMostItsSlowdown) {
  // Data parallelism only: the slow replica's compute takes 1/0.8 as long; the others wait
  // for it at the gradient reductions; the step is no slower than everyone at 0.8.
  const Settings dp_only{{"parallel.pp", "1"}, {"parallel.tp", "1"}, {"parallel.zero", "0"}, {"cluster.nodes", "1"}};
  const Scenario uniform = scenario(k_dense, dp_only);
  Settings slowed = dp_only;
  slowed.push_back({"variations.slow_gpu_ids", "3"});
  slowed.push_back({"variations.slow_gpu_speed", "0.8"});
  const Step u = simulate(uniform);
  const Step one = simulate(scenario(k_dense, slowed));
  slowed.back() = {"variations.slow_gpu_speed", "1"};
  const Step at_full_speed = simulate(scenario(k_dense, slowed));
  EXPECT_EQ(at_full_speed.step_time_s, u.step_time_s);  // speed 1: nothing differs, to the bit
  EXPECT_EQ(at_full_speed.slow_gpus, 0);
  EXPECT_GT(one.step_time_s, u.step_time_s + 0.2 * 0.9 * u.forward);
  EXPECT_LE(one.step_time_s, u.step_time_s / 0.8 * 1.0001);
  // Seven GPUs of eight wait for the slow one: about its extra forward and backward time.
  EXPECT_GT(one.straggler_wait, 0.5 * 0.25 * u.forward);
  EXPECT_EQ(u.straggler_wait, 0);
}

// A slow NIC in the data-parallel rings, on the pipeline's path between nodes, and under the
// experts' all-to-alls across nodes.
std::vector<std::pair<std::string, Scenario>> slow_nic_cases(const Settings& change) {
  const auto with = [&](const Settings& s) { return testing::merged(s, change); };
  const Settings nic{{"variations.slow_nic_ids", "5"}, {"variations.slow_nic_speed", "0.25"}};
  return {
      {"data-parallel rings", scenario(k_dense, with(nic))},
      {"pipeline across nodes", scenario(k_dense, with({{"variations.slow_nic_ids", "9"},
                                                        {"variations.slow_nic_speed", "0.25"},
                                                        {"parallel.tp", "8"},
                                                        {"parallel.zero", "0"},
                                                        {"cluster.nodes", "4"}}))},
      {"zero 3", scenario(k_dense, with({{"variations.slow_nic_ids", "5"},
                                         {"variations.slow_nic_speed", "0.25"},
                                         {"parallel.tp", "1"},
                                         {"parallel.zero", "3"}}))},
      {"drawn, with a slow GPU", scenario(k_dense, with({{"variations.slow_nics", "2"},
                                                         {"variations.slow_nic_speed", "0.5"},
                                                         {"variations.slow_gpu_ids", "5"},
                                                         {"variations.slow_gpu_speed", "0.8"}}))},
      {"experts",
       scenario(with(testing::merged(testing::small_mixtral(8, 4),
                                     {{"variations.slow_nic_ids", "20"}, {"variations.slow_nic_speed", "0.25"}})))},
  };
}

TEST(SlowNicStep, ReducedEqualsFull) {
  // As for slow GPUs (SlowGpuStep.ReducedEqualsFullWithEveryKindOfCoupling): gradients reduced
  // after the backward, every collective timed where it runs, reduced equals --full.
  for (const auto& [what, s] : slow_nic_cases({{"parallel.overlap_grad_reduce", "false"}})) {
    Scenario uniform = s;
    uniform.variations = VariationSpec{};
    const Step reduced = simulate(s, true);
    const Step full = simulate(s, false);
    EXPECT_NEAR(reduced.step_time_s / full.step_time_s, 1.0, 1e-9) << what;
    EXPECT_NEAR(reduced.dp_comm / full.dp_comm, 1.0, 1e-9) << what;
    EXPECT_GT(reduced.step_time_s, simulate(uniform, true).step_time_s * 1.001) << what;  // it costs
  }
  // With overlapped reductions, within 1 % as for a uniform cluster (the experts' gap aside).
  for (const auto& [what, s] : slow_nic_cases({})) {
    if (what != "experts") {
      EXPECT_NEAR(simulate(s, true).step_time_s / simulate(s, false).step_time_s, 1.0, 0.01) << what;
    }
  }
}

TEST(SlowNicStep, AFullSpeedNicChangesNothing) {
  const Step uniform = simulate(scenario(k_dense));
  const Step same = simulate(scenario(k_dense, {{"variations.slow_nic_ids", "5"}, {"variations.slow_nic_speed", "1"}}));
  EXPECT_EQ(same.step_time_s, uniform.step_time_s);
}

TEST(UplinksDownStep, ReducedEqualsFullAsForAUniformCluster) {
  // 8 DGX H100 nodes on a two-leaf fat-tree (32 uplinks per leaf): 30 of leaf 0's down, its
  // traffic spread over the 2 left. The reduced simulation's gap to --full is the uniform
  // cluster's (a few 1e-6 on this layout), and the step is slower. The former order
  // tp-cp-pp-dp spreads each data-parallel group over all 8 nodes, both leaves; under
  // Megatron-Core's (the default) a stage's DP groups stay on one leaf's 4 nodes and the
  // uplinks carry only pipeline sends (the step then 0.0734 s against 0.0667 s uniform).
  const Settings base{
      {"model.preset", "llama3-8b"}, {"model.layers", "8"},         {"model.seq_len", "2048"},
      {"training.micro_batch", "1"}, {"training.grad_accum", "4"},  {"parallel.tp", "4"},
      {"parallel.pp", "2"},          {"parallel.zero", "1"},        {"parallel.overlap_grad_reduce", "false"},
      {"cluster.nodes", "8"},        {"cluster.fabric", "fat-tree"}, {"parallel.order", "tp-cp-pp-dp"}};
  std::string ids;
  for (int cable = 0; cable < 30; ++cable) ids += (cable ? "+" : "") + std::to_string(cable);
  const Scenario down = scenario(base, {{"variations.down_uplink_ids", ids}});
  const Scenario uniform = scenario(base);
  const Step reduced = simulate(down, true), full = simulate(down, false);
  const Step u_reduced = simulate(uniform, true), u_full = simulate(uniform, false);
  EXPECT_NEAR(reduced.step_time_s / full.step_time_s, u_reduced.step_time_s / u_full.step_time_s, 1e-5);
  EXPECT_NEAR(reduced.dp_comm / full.dp_comm, 1.0, 1e-5);
  EXPECT_GT(reduced.step_time_s, 1.5 * u_reduced.step_time_s);
  // One cable of 32 down costs little: the leaf's other uplinks carry its traffic.
  const Step one = simulate(scenario(base, {{"variations.down_uplink_ids", "3"}}));
  EXPECT_NEAR(one.step_time_s / u_reduced.step_time_s, 1.0, 0.01);
}

TEST(SpinesDownStep, EveryLeafLosesItsCableToTheSpineAndTheClusterStaysSymmetric) {
  // Llama 3 70B's gradient shards all-reduced over 8 DGX H100 nodes on a 4:1 oversubscribed
  // two-leaf fat tree (8 spines): the rings fill the leaves' uplinks. A spine down takes one
  // cable of 8 from each leaf: every node finds the same above it, so one replica still
  // stands for all (equal to --full), and the step is slower.
  const Settings base{{"model.preset", "llama3-70b"}, {"model.layers", "8"},
                      {"model.seq_len", "1024"},      {"training.grad_accum", "1"},
                      {"parallel.tp", "8"},           {"cluster.nodes", "8"},
                      {"cluster.fabric", "fat-tree"}, {"cluster.oversubscription", "4"}};
  Scenario down = scenario(base, {{"variations.down_spine_ids", "5"}});
  const Step uniform = simulate(scenario(base));
  const Step reduced = simulate(down, true), full = simulate(down, false);
  EXPECT_NEAR(reduced.step_time_s / full.step_time_s, 1.0, 1e-9);
  EXPECT_GT(reduced.dp_comm, uniform.dp_comm * 1.05);
  EXPECT_LT(reduced.step_time_s, uniform.step_time_s * 8.0 / 7.0);  // less than the cable's share
  down.cluster = with_slow_parts(down.cluster, down.variations, down.run.seed);
  EXPECT_EQ(down_cables_per_leaf(down.cluster, fabric_layout(down.cluster)), (std::vector<int>{1, 1}));
  EXPECT_EQ(replica_classes(down, RankMapping(down.parallel, down.cluster), down.cluster, true).size(), 1u);
  // The same cable down by both keys counts once; drawn spines are seeded.
  Scenario both = scenario(base, {{"variations.down_spine_ids", "5"}, {"variations.down_uplink_ids", "5"}});
  both.cluster = with_slow_parts(both.cluster, both.variations, both.run.seed);
  EXPECT_EQ(down_cables_per_leaf(both.cluster, fabric_layout(both.cluster)), (std::vector<int>{1, 1}));
  const Scenario drawn = scenario(base, {{"variations.down_spines", "2"}});
  EXPECT_EQ(with_slow_parts(drawn.cluster, drawn.variations, drawn.run.seed).down_spines.size(), 2u);
}

TEST(SpinesDownStep, ARailsSpinesDownSlowOnlyThatRailsTraffic) {
  // 64 nodes on a rail-optimized fabric: 8 rails of 2 leaves and 32 spines each. Half of rail
  // 0's spines down: its leaves keep half their uplinks; every node has a NIC on rail 0, so
  // the replicas stay alike.
  const Settings base{{"model.preset", "llama3-70b"},      {"model.layers", "8"}, {"model.seq_len", "1024"},
                      {"training.grad_accum", "1"},        {"parallel.tp", "8"},  {"cluster.nodes", "64"},
                      {"cluster.fabric", "rail-optimized"}};
  std::string ids;
  for (int spine = 0; spine < 16; ++spine) ids += (spine ? "+" : "") + std::to_string(spine);
  Scenario down = scenario(base, {{"variations.down_spine_ids", ids}});
  down.cluster = with_slow_parts(down.cluster, down.variations, down.run.seed);
  const std::vector<int> per_leaf = down_cables_per_leaf(down.cluster, fabric_layout(down.cluster));
  ASSERT_EQ(per_leaf.size(), 16u);
  EXPECT_EQ(per_leaf[0], 16);
  EXPECT_EQ(per_leaf[1], 16);
  EXPECT_EQ(per_leaf[2], 0);  // rail 1's leaves
  EXPECT_EQ(replica_classes(down, RankMapping(down.parallel, down.cluster), down.cluster, true).size(), 1u);
  // Each rail's rings cross a leaf's uplinks one flow each way: half of them carry it.
  EXPECT_NEAR(simulate(down).step_time_s / simulate(scenario(base)).step_time_s, 1.0, 1e-9);
}

}  // namespace
}  // namespace trainsim
