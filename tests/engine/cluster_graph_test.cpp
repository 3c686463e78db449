#include <gtest/gtest.h>

#include <sstream>

#include "tests/engine/test_clusters.hpp"
#include "topologies/cluster_graph.hpp"
#include "topologies/fabric_layout.hpp"
#include "topologies/topology_summary.hpp"

namespace trainsim {
namespace {

ClusterSpec dgx_h100(int nodes, Fabric fabric) { return engine::test::preset_cluster("dgx-h100", nodes, fabric); }

TEST(ClusterGraph, DgxNodeHasEightGpusOnOneNvswitchAndEightNics) {
  const ClusterSpec c = dgx_h100(1, Fabric::fat_tree);
  const TopologySummary s = summarize_topology(c, build_cluster_graph(c));
  EXPECT_EQ(s.gpus, 8);
  EXPECT_EQ(s.nvswitches, 1);
  EXPECT_EQ(s.nics, 8);
  EXPECT_EQ(s.leaves, 1);
  EXPECT_EQ(s.spines, 0);
  // 8 GPU-NVSwitch + 8 GPU-NIC + 8 NIC-leaf cables.
  EXPECT_EQ(s.links, 24);
  EXPECT_DOUBLE_EQ(s.bisection_Bps, 4 * 450e9);  // half the GPUs' NVLink
}

TEST(ClusterGraph, PresetsCarryTheirNicSpeeds) {
  EXPECT_DOUBLE_EQ(cluster_preset("dgx-a100")->nic_bandwidth_Bps, 200e9 / 8);  // HDR
  EXPECT_DOUBLE_EQ(cluster_preset("dgx-h100")->nic_bandwidth_Bps, 400e9 / 8);  // NDR
  EXPECT_DOUBLE_EQ(cluster_preset("hgx-h200")->nic_bandwidth_Bps, 400e9 / 8);
  EXPECT_EQ(cluster_preset("dgx-a100")->gpus_per_node, 8);
}

TEST(ClusterGraph, RailOptimizedPutsNicIOnRailILeaves) {
  const ClusterSpec c = dgx_h100(64, Fabric::rail_optimized);  // two scalable units of 32 nodes
  const ClusterGraph g = build_cluster_graph(c);
  int checked = 0;
  for (const auto e : boost::make_iterator_range(boost::edges(g))) {
    if (g[e].kind != LinkKind::nic_leaf) continue;
    auto nic = boost::source(e, g);
    auto leaf = boost::target(e, g);
    if (g[nic].kind != DeviceKind::nic) std::swap(nic, leaf);
    // Rail i owns leaves 2i and 2i+1 (one per scalable unit).
    EXPECT_EQ(g[leaf].index / 2, g[nic].index) << g[nic].name << " on " << g[leaf].name;
    EXPECT_EQ(g[leaf].index % 2, g[nic].node / 32);
    ++checked;
  }
  EXPECT_EQ(checked, 64 * 8);
  const TopologySummary s = summarize_topology(c, g);
  EXPECT_EQ(s.leaves, 16);
  EXPECT_EQ(s.spines, 8 * 32);  // each rail's leaves have 32 uplinks, to the rail's spines
}

TEST(ClusterGraph, FatTreeOversubscriptionDividesUplinksAndBisection) {
  ClusterSpec c = dgx_h100(16, Fabric::fat_tree);  // 128 NICs on 4 leaves
  const FabricLayout full = fabric_layout(c);
  EXPECT_EQ(full.leaves, 4);
  EXPECT_DOUBLE_EQ(full.leaf_uplink_Bps, 32 * 50e9);
  const double full_bisection = summarize_topology(c, build_cluster_graph(c)).bisection_Bps;
  EXPECT_DOUBLE_EQ(full_bisection, 8 * 8 * 50e9);
  c.oversubscription = 2;
  EXPECT_DOUBLE_EQ(fabric_layout(c).leaf_uplink_Bps, 16 * 50e9);
  EXPECT_DOUBLE_EQ(summarize_topology(c, build_cluster_graph(c)).bisection_Bps, full_bisection / 2);
}

TEST(ClusterGraph, ThreeLevelFatTreeHasPodsAndCores) {
  ClusterSpec c = dgx_h100(256, Fabric::fat_tree);  // 2048 NICs, 64 leaves, 2 pods of 32
  c.fat_tree_levels = 3;
  const FabricLayout l = fabric_layout(c);
  EXPECT_EQ(l.leaves, 64);
  EXPECT_EQ(l.groups, 2);
  EXPECT_EQ(l.group_of_leaf(31), 0);
  EXPECT_EQ(l.group_of_leaf(32), 1);
  const TopologySummary s = summarize_topology(c, build_cluster_graph(c));
  EXPECT_EQ(s.spines, 2 * 32);
  EXPECT_GT(s.cores, 0);
}

TEST(ClusterGraph, WritesGraphvizDot) {
  const ClusterSpec c = dgx_h100(2, Fabric::single_switch);
  std::ostringstream dot;
  write_cluster_dot(dot, build_cluster_graph(c));
  EXPECT_EQ(dot.str().rfind("graph G {", 0), 0u);
  EXPECT_NE(dot.str().find("n1.gpu7"), std::string::npos);
  EXPECT_NE(dot.str().find("50 GB/s"), std::string::npos);
}

}  // namespace
}  // namespace trainsim
