// A lone plan's parallel tasks may leave out the legs whose links duplicate links they keep
// (sim/engine/redundant_legs.hpp), and whole tasks that repeat an earlier part of the phase
// (sim/engine/redundant_tasks.hpp): the simulated times must be bit-identical to the full
// simulation's, for every algorithm and on every fabric shape, and the reductions must
// leave out legs where a collective repeats itself (the chains of every node in a tree, the
// NVLink stage of every node in an NVLS-tree).

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/collective.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/redundant_legs.hpp"
#include "sim/engine/redundant_tasks.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/engine/test_clusters.hpp"

namespace trainsim::engine {
namespace {

struct Case {
  ClusterSpec cluster;
  CollectiveCall call;
};

CollectiveCall call_on(std::vector<int> gpus, CollectiveOp op, CollectiveAlgo algo, double bytes) {
  CollectiveCall c;
  c.op = op;
  c.algo = algo;
  c.bytes = bytes;
  c.gpus = std::move(gpus);
  return c;
}

std::vector<int> every_gpu(const ClusterSpec& c) {
  std::vector<int> g;
  for (int i = 0; i < c.total_gpus(); ++i) g.push_back(i);
  return g;
}

// The collective's simulated time, in its own process.
double simulated_s(const Case& c, PlanSurroundings surroundings) {
  return test::run_isolated([&] {
    Simulation sim;
    const Platform platform(c.cluster);
    const CommActivity a = start_collective(platform, c.call, surroundings);
    sim.run();
    return std::vector<double>{a.duration_s()};
  }).at(0);
}

// The same, alone, planned without SimGrid and run on a platform built with only the
// endpoints the plan keeps (as trainsim collective and its bench run); and the endpoints built.
std::vector<double> simulated_on_lone_platform(const Case& c) {
  return test::run_isolated([&] {
    Simulation sim;
    const Platform planning = Platform::without_simgrid(c.cluster);
    std::vector<bool> endpoints;
    PreparedPlan prepared = prepare_lone_plan(planning, plan_collective(c.call, planning), &endpoints);
    const auto built = static_cast<double>(std::count(endpoints.begin(), endpoints.end(), true));
    const Platform platform(c.cluster, std::move(endpoints));
    const CommActivity a = start_prepared_plan(platform, std::make_shared<const PreparedPlan>(std::move(prepared)));
    sim.run();
    return std::vector<double>{a.duration_s(), built, static_cast<double>(planning.endpoint_count())};
  });
}

void expect_identical(const Case& c) {
  const double full = simulated_s(c, PlanSurroundings::shared);
  const double reduced = simulated_s(c, PlanSurroundings::alone);
  const double on_lone_platform = simulated_on_lone_platform(c).at(0);
  EXPECT_GT(full, 0);
  EXPECT_EQ(full, reduced) << algo_name(c.call.algo) << " " << op_name(c.call.op) << " on "
                           << c.call.gpus.size() << " GPUs";
  EXPECT_EQ(full, on_lone_platform) << algo_name(c.call.algo) << " " << op_name(c.call.op) << " on "
                                    << c.call.gpus.size() << " GPUs, the plan's endpoints only";
}

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

TEST(RedundantLegs, EveryAlgorithmOnRailOptimizedDgxH100IsBitIdentical) {
  const ClusterSpec c = test::preset_cluster("dgx-h100", 48, Fabric::rail_optimized);
  const std::vector<int> all = every_gpu(c);
  for (const CollectiveAlgo algo : {CollectiveAlgo::automatic, CollectiveAlgo::ring,
                                    CollectiveAlgo::double_binary_tree, CollectiveAlgo::hierarchical})
    expect_identical({c, call_on(all, CollectiveOp::all_reduce, algo, k_gib)});
  for (const CollectiveOp op : {CollectiveOp::all_gather, CollectiveOp::reduce_scatter, CollectiveOp::broadcast,
                                CollectiveOp::all_to_all})
    expect_identical({c, call_on(all, op, CollectiveAlgo::automatic, 256 * test::k_mib)});
}

TEST(RedundantLegs, PartialGroupsAndSmallMessagesAreBitIdentical) {
  const ClusterSpec c = test::preset_cluster("dgx-h100", 40, Fabric::rail_optimized);
  std::vector<int> strided;  // GPUs 0 and 3 of every other node: two rails, crossing leaves
  for (int n = 0; n < c.nodes; n += 2)
    for (const int i : {0, 3}) strided.push_back(n * c.gpus_per_node + i);
  for (const CollectiveAlgo algo : {CollectiveAlgo::ring, CollectiveAlgo::double_binary_tree})
    for (const double bytes : {64.0 * 1024, 1.0 * k_gib})
      expect_identical({c, call_on(strided, CollectiveOp::all_reduce, algo, bytes)});
}

TEST(RedundantLegs, FatTreesOversubscribedAndNvl72AreBitIdentical) {
  ClusterSpec fat = test::small_cluster(48, 4, Fabric::fat_tree);
  fat.oversubscription = 2.0;
  for (const CollectiveAlgo algo : {CollectiveAlgo::ring, CollectiveAlgo::double_binary_tree})
    expect_identical({fat, call_on(every_gpu(fat), CollectiveOp::all_reduce, algo, k_gib)});
  const ClusterSpec nvl72 = test::preset_cluster("gb200-nvl72", 36, Fabric::rail_optimized);
  for (const CollectiveAlgo algo : {CollectiveAlgo::automatic, CollectiveAlgo::ring})
    expect_identical({nvl72, call_on(every_gpu(nvl72), CollectiveOp::all_reduce, algo, k_gib)});
}

TEST(RedundantLegs, ALoneTreeBuildsAQuarterOfTheEndpoints) {
  // One NVLink chain and one rail per block of 8 nodes, and the NICs of the edges between
  // blocks: of 64 DGX H100 nodes' 1,024 GPUs and NICs, the tree's platform builds 256.
  const ClusterSpec c = test::preset_cluster("dgx-h100", 64, Fabric::rail_optimized);
  const std::vector<double> r = simulated_on_lone_platform(
      {c, call_on(every_gpu(c), CollectiveOp::all_reduce, CollectiveAlgo::double_binary_tree, k_gib)});
  EXPECT_EQ(r.at(2), 1024);
  EXPECT_GT(r.at(1), 0);
  EXPECT_LE(r.at(1), r.at(2) / 3) << r.at(1) << " of " << r.at(2) << " endpoints built";
}

TEST(RedundantLegs, ATreeLeavesOutMostOfItsNodesChains) {
  // A block of 8 DGX H100 nodes is one 128-host task of the tree; its 8 nodes' NVLink chains
  // are alike, and so are its 8 rails' tree edges: one of each stays.
  const std::vector<double> counts = test::run_isolated([] {
    Simulation sim;
    const ClusterSpec c = test::preset_cluster("dgx-h100", 64, Fabric::rail_optimized);
    const Platform platform(c);
    const CommPlan plan =
        plan_collective(call_on(every_gpu(c), CollectiveOp::all_reduce, CollectiveAlgo::double_binary_tree, k_gib),
                        platform);
    std::vector<Leg> legs;
    for (const Transfer& t : plan.phases.at(0).transfers)
      for (const Hop& h : platform.hops(t.src_gpu, t.dst_gpu)) legs.push_back({h.src, h.dst, t.bytes});
    TaskLegs whole;  // one task for the test: the reduction works within and across tasks alike
    whole.last = legs.size();
    for (const Leg& l : legs)
      for (const int e : {l.src, l.dst})
        if (std::find(whole.endpoints.begin(), whole.endpoints.end(), e) == whole.endpoints.end())
          whole.endpoints.push_back(e);
    const std::vector<bool> out = redundant_legs(platform.routes(), legs, {whole});
    return std::vector<double>{static_cast<double>(legs.size()),
                               static_cast<double>(std::count(out.begin(), out.end(), true))};
  });
  EXPECT_GT(counts.at(1), counts.at(0) / 2) << counts.at(1) << " of " << counts.at(0) << " legs left out";
}

TEST(RedundantTasks, NvlsTreesAndInDomainCollectivesAreBitIdentical) {
  // 40 DGX H100 nodes: the NVLS stage packs 16 nodes a task, so 2 tasks repeat the first and
  // a third (8 nodes) differs; 96 GPUs: 12 nodes of 8, and of 12 on an uneven group.
  const ClusterSpec c = test::preset_cluster("dgx-h100", 40, Fabric::rail_optimized);
  const std::vector<int> all = every_gpu(c);
  for (const CollectiveAlgo algo : {CollectiveAlgo::automatic, CollectiveAlgo::nvls_tree})
    for (const double bytes : {64.0 * 1024, 1.0 * k_gib})
      expect_identical({c, call_on(all, CollectiveOp::all_reduce, algo, bytes)});
  const std::vector<int> first_96(all.begin(), all.begin() + 96);
  expect_identical({c, call_on(first_96, CollectiveOp::all_reduce, CollectiveAlgo::nvls_tree, k_gib)});
  const std::vector<int> one_node(all.begin(), all.begin() + 8);
  for (const CollectiveAlgo algo : {CollectiveAlgo::nvls, CollectiveAlgo::ring})
    expect_identical({c, call_on(one_node, CollectiveOp::all_reduce, algo, k_gib)});
  const ClusterSpec nvl72 = test::preset_cluster("gb200-nvl72", 72, Fabric::rail_optimized);
  expect_identical({nvl72, call_on(every_gpu(nvl72), CollectiveOp::all_reduce, CollectiveAlgo::nvls_tree, k_gib)});
  ClusterSpec fat = test::preset_cluster("dgx-h100", 48, Fabric::fat_tree);
  fat.oversubscription = 2.0;
  expect_identical({fat, call_on(every_gpu(fat), CollectiveOp::all_reduce, CollectiveAlgo::nvls_tree, k_gib)});
}

TEST(RedundantTasks, ANvlsTreeBuildsOneNodesGpus) {
  // 64 DGX H100 nodes: the NVLS stage is 4 tasks of 16 nodes; redundant_legs keeps one node a
  // task (32 GPUs), and the 3 tasks that repeat the first are left out whole: 8 GPUs remain.
  // The heads' trees run on 8 rails that share no link, here each in tasks of its own: 7 repeat
  // the first, whose 64 NICs remain of 512 (where a task spans two rails, they are one
  // component and all stay: 4,096 GPUs).
  const ClusterSpec c = test::preset_cluster("dgx-h100", 64, Fabric::rail_optimized);
  const std::vector<double> counts = test::run_isolated([&] {
    const Platform planning = Platform::without_simgrid(c);
    std::vector<bool> endpoints;
    prepare_lone_plan(planning,
                      plan_collective(call_on(every_gpu(c), CollectiveOp::all_reduce, CollectiveAlgo::nvls_tree, k_gib),
                                      planning),
                      &endpoints);
    const auto gpus_built = std::count(endpoints.begin(), endpoints.begin() + planning.gpu_count(), true);
    const auto nics_built = std::count(endpoints.begin() + planning.gpu_count(), endpoints.end(), true);
    return std::vector<double>{static_cast<double>(gpus_built), static_cast<double>(nics_built)};
  });
  EXPECT_EQ(counts.at(0), 8);
  EXPECT_EQ(counts.at(1), 64);
}

// Two tasks over the ports of endpoints {0, 1} and {2, 3} (GPUs of two nodes): `bytes` per leg.
std::vector<bool> two_tasks(const FabricRoutes& routes, double first_bytes, double second_bytes,
                            bool share_an_endpoint) {
  const int c = share_an_endpoint ? 1 : 2;
  const std::vector<Leg> legs{{0, 1, first_bytes}, {1, 0, first_bytes}, {c, 3, second_bytes}, {3, c, second_bytes}};
  const std::vector<TaskLegs> tasks{{0, 2, {0, 1}}, {2, 4, {c, 3}}};
  return redundant_tasks(routes, legs, tasks, {});
}

TEST(RedundantTasks, LeavesOutOnlyExactRepeatsOnOtherLinks) {
  const Platform planning = Platform::without_simgrid(test::small_cluster(2, 4, Fabric::single_switch));
  // GPUs 0, 1 and 2, 3 share a node's switch but no port: the second task repeats the first.
  EXPECT_EQ(two_tasks(planning.routes(), 1e6, 1e6, false), (std::vector<bool>{false, true}));
  // A different weight, or a shared port (GPU 1's), keeps both.
  EXPECT_EQ(two_tasks(planning.routes(), 1e6, 1e6 + 1, false), (std::vector<bool>{false, false}));
  EXPECT_EQ(two_tasks(planning.routes(), 1e6, 1e6, true), (std::vector<bool>{false, false}));
}

}  // namespace
}  // namespace trainsim::engine
