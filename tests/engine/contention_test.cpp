// Link sharing comes from SimGrid's network model: concurrent collectives on the same
// links slow each other down, oversubscribed uplinks slow what crosses them and nothing
// else, and rail-aligned traffic stays on its rail.

#include <gtest/gtest.h>

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <cmath>

#include "sim/engine/collective.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/engine/test_clusters.hpp"

namespace trainsim::engine {
namespace {

using test::k_mib;

CollectiveCall all_reduce(std::vector<int> gpus, double bytes) {
  CollectiveCall c;
  c.algo = CollectiveAlgo::ring;
  c.gpus = std::move(gpus);
  c.bytes = bytes;
  return c;
}

TEST(Contention, TwoAllReducesSharingInterNodeLinksTakeTwiceAsLong) {
  // 4 nodes x 2 GPUs, one NIC per node: ring A over the nodes' first GPUs and ring B over
  // their second GPUs both cross every NIC.
  const auto t = test::run_isolated([] {
    Simulation sim;
    const Platform platform(test::small_cluster(4, 2, Fabric::fat_tree));
    const CommActivity alone = start_collective(platform, all_reduce({0, 2, 4, 6}, 256 * k_mib));
    sim.run();
    return std::vector<double>{alone.duration_s()};
  });
  const auto both = test::run_isolated([] {
    Simulation sim;
    const Platform platform(test::small_cluster(4, 2, Fabric::fat_tree));
    const CommActivity a = start_collective(platform, all_reduce({0, 2, 4, 6}, 256 * k_mib));
    const CommActivity b = start_collective(platform, all_reduce({1, 3, 5, 7}, 256 * k_mib));
    sim.run();
    return std::vector<double>{a.duration_s(), b.duration_s()};
  });
  EXPECT_GE(both[0], 1.8 * t[0]);
  EXPECT_GE(both[1], 1.8 * t[0]);
}

TEST(Contention, AllReducesOnDisjointNvlinkDoNotSlowEachOther) {
  // Two nodes, each running its own intra-node all-reduce: no shared link.
  const auto t = test::run_isolated([] {
    Simulation sim;
    const Platform platform(test::small_cluster(2, 4, Fabric::fat_tree));
    const CommActivity a = start_collective(platform, all_reduce({0, 1, 2, 3}, 256 * k_mib));
    const CommActivity b = start_collective(platform, all_reduce({4, 5, 6, 7}, 256 * k_mib));
    sim.run();
    return std::vector<double>{a.duration_s(), b.duration_s()};
  });
  EXPECT_DOUBLE_EQ(t[0], t[1]);
  const double alone = 2 * 3.0 / 4 * 256 * k_mib / test::k_nvlink_Bps + 6 * test::k_nvlink_latency_s;
  EXPECT_NEAR(t[0], alone, 0.01 * alone);
}

// 40 single-GPU nodes on a 2-level fat-tree: two leaves of 20 NICs.
double fat_tree_all_reduce_s(double oversubscription, bool cross_leaves) {
  return test::run_isolated([=] {
    ClusterSpec c = test::small_cluster(40, 1, Fabric::fat_tree);
    c.oversubscription = oversubscription;
    Simulation sim;
    const Platform platform(c);
    std::vector<int> ring;
    if (cross_leaves) {
      for (int i = 0; i < 20; ++i) ring.insert(ring.end(), {i, 20 + i});  // every edge changes leaf
    } else {
      for (int i = 0; i < 20; ++i) ring.push_back(i);  // all under leaf 0
    }
    const CommActivity a = start_collective(platform, all_reduce(ring, 1024 * k_mib));
    sim.run();
    return std::vector<double>{a.duration_s()};
  })[0];
}

TEST(Contention, OversubscribedFatTreeSlowsTrafficThatCrossesLeaves) {
  const double full = fat_tree_all_reduce_s(1, true);
  const double half = fat_tree_all_reduce_s(2, true);
  const double quarter = fat_tree_all_reduce_s(4, true);
  EXPECT_NEAR(half / full, 2.0, 0.02);
  EXPECT_NEAR(quarter / full, 4.0, 0.04);
}

TEST(Contention, OversubscribedFatTreeLeavesTrafficUnderOneLeafAlone) {
  const double full = fat_tree_all_reduce_s(1, false);
  const double quarter = fat_tree_all_reduce_s(4, false);
  EXPECT_DOUBLE_EQ(quarter, full);
}

bool mentions(const std::vector<std::string>& links, const std::string& part) {
  return std::any_of(links.begin(), links.end(),
                     [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

TEST(Contention, RailAlignedTrafficNeverTouchesASpine) {
  // 64 DGX H100 nodes, rail-optimized: two scalable units of 32 nodes per rail.
  const auto result = test::run_isolated([] {
    ClusterSpec c = *cluster_preset("dgx-h100");
    c.nodes = 64;
    c.fabric = Fabric::rail_optimized;
    Simulation sim;
    const Platform platform(c);
    double same_unit_uplinks = 0, cross_unit_other_rails = 0, cross_unit_core = 0, cross_rail_core = 0;
    for (int rail = 0; rail < 8; ++rail) {
      for (int n = 0; n < 31; ++n) {
        const auto links = platform.link_names(n * 8 + rail, (n + 1) * 8 + rail);
        same_unit_uplinks += mentions(links, "uplink");
      }
      const auto far = platform.link_names(rail, 40 * 8 + rail);
      for (int other = 0; other < 8; ++other)
        if (other != rail) cross_unit_other_rails += mentions(far, ".nic" + std::to_string(other));
      cross_unit_core += mentions(far, "rail");
      // GPU 0 of node 0 to GPU 5 of node 1: PXN hops to GPU 5 over NVLink, then rail 5.
      const auto cross = platform.link_names(0, 8 + 5);
      cross_rail_core += mentions(cross, "rail") + mentions(cross, ".nic0");
    }
    return std::vector<double>{same_unit_uplinks, cross_unit_other_rails, cross_unit_core, cross_rail_core};
  });
  EXPECT_EQ(result[0], 0) << "rail-aligned traffic inside a scalable unit stays on its leaf";
  EXPECT_EQ(result[1], 0) << "rail traffic between units never uses another rail's NIC or leaf";
  EXPECT_EQ(result[2], 0) << "rail traffic between units never reaches the cross-rail core";
  EXPECT_EQ(result[3], 0) << "PXN keeps cross-rail messages on the destination's rail";
}

TEST(Contention, PlatformLatencyMatchesSimGridRoutes) {
  const auto errors = test::run_isolated([] {
    ClusterSpec c = *cluster_preset("dgx-h100");
    c.nodes = 256;  // 2048 NICs: 64 leaves in 2 pods
    c.fat_tree_levels = 3;
    c.fabric = Fabric::fat_tree;
    Simulation sim;
    const Platform platform(c);
    double worst = 0;
    for (const auto& [a, b] : std::vector<std::pair<int, int>>{{0, 1}, {0, 9}, {0, 8 * 5}, {3, 8 * 255 + 4}}) {
      for (const Hop& h : platform.hops(a, b)) {
        std::vector<simgrid::s4u::Link*> links;
        double latency = 0;
        platform.host(h.src)->route_to(platform.host(h.dst), links, &latency);
        worst = std::max(worst, std::abs(latency - platform.hop_latency_s(h)));
      }
    }
    return std::vector<double>{worst};
  });
  EXPECT_LT(errors[0], 1e-12);
}

}  // namespace
}  // namespace trainsim::engine
