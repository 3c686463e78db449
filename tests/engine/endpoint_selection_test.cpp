// A platform built for some endpoints only (sim/engine/endpoint_selection.hpp): the
// selection holds every endpoint a message between its GPUs crosses, a platform leaves the
// others out (and refuses their hosts), and a collective on it takes the time it takes on
// the whole cluster's, to the bit.

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <vector>

#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/collective.hpp"
#include "sim/engine/endpoint_selection.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/engine/test_clusters.hpp"
#include "topologies/cluster_spec.hpp"

namespace trainsim::engine {
namespace {

ClusterSpec dgx_h100(int nodes, Fabric fabric) { return test::preset_cluster("dgx-h100", nodes, fabric); }

std::vector<int> selected(const EndpointSelection& s) {
  std::vector<int> out;
  for (size_t e = 0; e < s.endpoints().size(); ++e)
    if (s.endpoints()[e]) out.push_back(static_cast<int>(e));
  return out;
}

TEST(EndpointSelection, ARailGroupSelectsItsGpusAndItsRailsNics) {
  const ClusterSpec c = dgx_h100(4, Fabric::rail_optimized);
  EndpointSelection s(c);
  s.add_group({3, 11, 19, 27});  // local GPU 3 of every node
  const int gpus = c.total_gpus();
  EXPECT_EQ(selected(s), (std::vector<int>{3, 11, 19, 27, gpus + 3, gpus + 11, gpus + 19, gpus + 27}));
}

TEST(EndpointSelection, MixedLocalIndicesSelectThePxnRelays) {
  const ClusterSpec c = dgx_h100(2, Fabric::rail_optimized);
  EndpointSelection s(c);
  s.add_group({0, 9});  // node 0's GPU 0, node 1's GPU 1: PXN over GPU 1 of node 0 and GPU 8 of node 1
  const int gpus = c.total_gpus();
  EXPECT_EQ(selected(s), (std::vector<int>{0, 1, 8, 9, gpus + 0, gpus + 1, gpus + 8, gpus + 9}));
}

// Every endpoint of every hop between two GPUs of each group is selected, on every fabric.
TEST(EndpointSelection, HoldsEveryHopOfEveryPair) {
  for (const Fabric f : {Fabric::rail_optimized, Fabric::fat_tree, Fabric::single_switch}) {
    const std::vector<double> missing = test::run_isolated([&] {
      Simulation sim;
      const ClusterSpec c = dgx_h100(6, f);
      const Platform whole(c);
      double misses = 0;
      for (const std::vector<int>& group :
           {std::vector<int>{0, 9, 18, 27}, std::vector<int>{5, 6, 40, 47}, std::vector<int>{1, 2, 3}}) {
        EndpointSelection s(c);
        s.add_group(group);
        for (const int a : group)
          for (const int b : group)
            for (const Hop& h : whole.hops(a, b))
              misses += !s.endpoints()[static_cast<size_t>(h.src)] + !s.endpoints()[static_cast<size_t>(h.dst)];
      }
      return std::vector<double>{misses};
    });
    EXPECT_EQ(missing.at(0), 0) << static_cast<int>(f);
  }
}

// A ring all-reduce over one rail of 64 nodes: the time on the platform built for its
// endpoints, on the whole one, and whether the sparse one refuses a host it left out.
std::vector<double> rail_all_reduce(bool sparse) {
  return test::run_isolated([&] {
    Simulation sim;
    const ClusterSpec c = dgx_h100(64, Fabric::rail_optimized);
    CollectiveCall call;
    call.op = CollectiveOp::all_reduce;
    call.algo = CollectiveAlgo::ring;
    call.bytes = 256.0 * 1024 * 1024;
    for (int n = 0; n < c.nodes; ++n) call.gpus.push_back(n * c.gpus_per_node);
    EndpointSelection s(c);
    s.add_group(call.gpus);
    const Platform platform(c, sparse ? s.endpoints() : std::vector<bool>{});
    double refused = 0;
    try {
      platform.host(1);
    } catch (const std::exception&) {
      refused = 1;
    }
    const CommActivity a = start_collective(platform, call);
    sim.run();
    return std::vector<double>{a.duration_s(), refused, platform.built(1) ? 1.0 : 0.0};
  });
}

TEST(EndpointSelection, ACollectiveTakesTheWholePlatformsTime) {
  const std::vector<double> sparse = rail_all_reduce(true);
  const std::vector<double> whole = rail_all_reduce(false);
  EXPECT_GT(sparse[0], 0);
  EXPECT_EQ(sparse[0], whole[0]);
  EXPECT_EQ(sparse[1], 1);  // GPU 1 was left out
  EXPECT_EQ(sparse[2], 0);
  EXPECT_EQ(whole[1], 0);
}

}  // namespace
}  // namespace trainsim::engine
