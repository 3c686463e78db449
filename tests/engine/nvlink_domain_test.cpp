// NVLink domains larger than a node (GB200 / GB300 NVL72): the presets, the platform's routes
// (NVLink inside a domain, NICs between domains), collectives inside and across domains held
// against the fabric's bounds, the rank mapping's warnings, and the cluster graph.

#include <gtest/gtest.h>

#include <string>

#include "sim/core/error.hpp"
#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/collective.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/engine/measured_collective.hpp"
#include "topologies/cluster_graph.hpp"
#include "topologies/protocol_efficiency.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/topology_summary.hpp"

namespace trainsim::engine {
namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

ClusterSpec racks(const char* preset, int count) {
  ClusterSpec c = *cluster_preset(preset);
  c.nodes = 18 * count;
  return c;
}

// Bus bandwidth (GB/s) of `op` of `bytes` over `gpus` of `cluster`, and the algorithm chosen.
std::vector<double> collective(const ClusterSpec& cluster, CollectiveOp op, const std::vector<int>& gpus, double bytes,
                               CollectiveAlgo algo = CollectiveAlgo::automatic) {
  return test::measured_collective(cluster, op, gpus, bytes, algo);
}

std::vector<int> first(int n) {
  return test::first_gpus(n);
}

TEST(NvlinkDomain, Nvl72Presets) {
  for (const auto& [name, gpu, nic_Gbps] :
       {std::tuple<const char*, const char*, double>{"gb200-nvl72", "gb200", 400}, {"gb300-nvl72", "gb300", 800}}) {
    const auto c = cluster_preset(name);
    ASSERT_TRUE(c) << name;
    EXPECT_EQ(c->gpu.name, gpu);
    EXPECT_EQ(c->nodes, 18) << name;  // one rack: 18 compute trays
    EXPECT_EQ(c->gpus_per_node, 4) << name;
    EXPECT_EQ(c->nics_per_node, 4) << name;  // one NIC per GPU
    EXPECT_EQ(c->domain_gpus(), 72) << name;
    EXPECT_EQ(c->nodes_per_domain(), 18) << name;
    EXPECT_EQ(c->domains(), 1) << name;
    EXPECT_DOUBLE_EQ(c->nvlink_bandwidth_Bps, 900e9) << name;  // NVLink 5, per direction
    EXPECT_DOUBLE_EQ(c->nic_bandwidth_Bps, nic_Gbps * 1e9 / 8) << name;
    EXPECT_EQ(c->fabric, Fabric::rail_optimized) << name;
  }
}

TEST(NvlinkDomain, JobsOnPartOfARack) {
  // 8 and 64 GPUs of one rack: the job's GPUs are the domain; 64 of each of two racks.
  ClusterSpec c = *cluster_preset("gb200-nvl72");
  c.nodes = 2;
  EXPECT_EQ(c.domain_gpus(), 8);
  EXPECT_EQ(c.physical_domain_gpus(), 72);
  EXPECT_EQ(c.domains(), 1);
  c.nodes = 16;
  EXPECT_EQ(c.domain_gpus(), 64);
  c.nodes = 32;
  c.gpus_per_domain = 64;
  EXPECT_EQ(c.domain_gpus(), 64);
  EXPECT_EQ(c.nodes_per_domain(), 16);
  EXPECT_EQ(c.domains(), 2);
  ParallelSpec p;
  p.tp = 8;
  p.dp = 16;
  const RankMapping m(p, c);
  EXPECT_EQ(m.domain_of(63), 0);
  EXPECT_EQ(m.domain_of(64), 1);  // tray 17 of the first rack is not the job's
  const Platform platform(c);
  EXPECT_EQ(platform.domain_of(63), 0);
  EXPECT_EQ(platform.domain_of(64), 1);
}

TEST(NvlinkDomain, CollectivesOnPartOfARack) {
  ClusterSpec c = *cluster_preset("gb200-nvl72");
  c.nodes = 32;
  c.gpus_per_domain = 64;
  // Inside one rack's 64 GPUs: NVLink, NVLS; across the two racks' shares: NVLS-tree.
  const std::vector<double> inside = collective(c, CollectiveOp::all_reduce, first(64), k_gib);
  EXPECT_EQ(inside[1], static_cast<double>(CollectiveAlgo::nvls));
  const std::vector<double> across = collective(c, CollectiveOp::all_reduce, first(128), k_gib);
  EXPECT_EQ(across[1], static_cast<double>(CollectiveAlgo::nvls_tree));
  EXPECT_LT(across[0], 900.0 * 2);
}

TEST(NvlinkDomain, DefaultDomainIsTheNode) {
  for (const char* name : {"dgx-a100", "dgx-h100", "hgx-h200", "dgx-b200"}) {
    ClusterSpec c = *cluster_preset(name);
    c.nodes = 4;
    EXPECT_EQ(c.nvlink_domain, 0) << name;
    EXPECT_EQ(c.domain_gpus(), 8) << name;
    EXPECT_EQ(c.nodes_per_domain(), 1) << name;
    EXPECT_EQ(c.domains(), 4) << name;
  }
}

TEST(NvlinkDomain, TraysOfOneRackTalkOverNvlinkRacksOverNics) {
  const ClusterSpec c = racks("gb200-nvl72", 2);
  const std::vector<double> r = test::run_isolated([&] {
    Simulation sim;
    const Platform p(c);
    // GPU 0 (tray 0) and GPU 4 (tray 1), same rack: one NVLink leg. GPU 0 and GPU 72: NICs.
    const auto in_rack = p.hops(0, 4);
    const auto across = p.hops(0, 72);
    return std::vector<double>{static_cast<double>(in_rack.size()),
                               static_cast<double>(in_rack[0].dst),
                               static_cast<double>(across.back().src >= p.gpu_count()),
                               static_cast<double>(p.domain_of(71)),
                               static_cast<double>(p.domain_of(72)),
                               static_cast<double>(p.nics_per_domain())};
  });
  EXPECT_EQ(r[0], 1);
  EXPECT_EQ(r[1], 4);
  EXPECT_EQ(r[2], 1);
  EXPECT_EQ(r[3], 0);
  EXPECT_EQ(r[4], 1);
  EXPECT_EQ(r[5], 72);
}

TEST(NvlinkDomain, TwoGpusOnDifferentTraysGetNvlinkTwoRacksGetTheNic) {
  const ClusterSpec c = racks("gb200-nvl72", 2);
  const ProtocolEfficiency e = protocol_efficiency(c);
  const double nvlink_GBps = 900 * e.nvlink;  // ~740
  const double nic_GBps = 50 * e.network;     // 47: 400 Gb/s NDR at 0.94
  const double trays = collective(c, CollectiveOp::all_reduce, {0, 4}, k_gib, CollectiveAlgo::ring)[0];
  const double rack_pair = collective(c, CollectiveOp::all_reduce, {0, 72}, k_gib, CollectiveAlgo::ring)[0];
  EXPECT_NEAR(trays, nvlink_GBps, nvlink_GBps * 0.03);
  EXPECT_NEAR(rack_pair, nic_GBps, nic_GBps * 0.03);
  // GB300: ConnectX-8 at 800 Gb/s doubles the NIC bound.
  const double gb300_pair =
      collective(racks("gb300-nvl72", 2), CollectiveOp::all_reduce, {0, 72}, k_gib, CollectiveAlgo::ring)[0];
  EXPECT_NEAR(gb300_pair, 2 * nic_GBps, 2 * nic_GBps * 0.03);
}

// Bus bandwidth (GB/s) of `m`'s model for `op` (steps as SimuMax counts them) on `ranks` GPUs.
double measured_model_GBps(const MeasuredCollective& m, CollectiveOp op, int ranks, double bytes) {
  const double steps = (op == CollectiveOp::all_reduce ? 2.0 : 1.0) * (ranks - 1);
  const double bus_bytes = bytes * bus_bandwidth_factor(op, ranks);
  return bus_bytes / (m.latency_s(ranks, steps) + bus_bytes / (900e9 * m.efficiency)) / 1e9;
}

TEST(NvlinkDomain, AllReduceInsideOneRackIsNvlinkClass) {
  const ClusterSpec c = racks("gb200-nvl72", 1);
  const ProtocolEfficiency e = protocol_efficiency(c);
  const double ring = collective(c, CollectiveOp::all_reduce, first(72), k_gib, CollectiveAlgo::ring)[0];
  EXPECT_LE(ring, 900.0);  // NVLink 5 line rate per direction
  // NVLink 5's measured all-reduce (SimuMax's 8 B200: 717 GB/s, 22 + 5.52 x 2(n-1) us) on 72 GPUs.
  const double expected = measured_model_GBps(e.all_reduce, CollectiveOp::all_reduce, 72, k_gib);
  EXPECT_NEAR(ring, expected, expected * 0.01);
  const std::vector<double> best = collective(c, CollectiveOp::all_reduce, first(72), k_gib);
  EXPECT_EQ(best[1], static_cast<double>(CollectiveAlgo::nvls));  // NVLS across the rack's trays
  EXPECT_GT(best[0], ring);
  EXPECT_LE(best[0], 900.0 / (1 + 1.0 / 72) * 2 * 71 / 72);  // NVLS bound
}

TEST(NvlinkDomain, AllToAllAcrossRacksIsBoundedByTheNics) {
  // Each GPU sends half its buffer to the other rack, through the rack's 72 NICs (PXN keeps it
  // on the destination's rail): algbw <= 2 x NIC rate, busbw = algbw x (n - 1) / n.
  const ClusterSpec c = racks("gb200-nvl72", 2);
  const double nic_GBps = 50 * protocol_efficiency(c).network;
  const double bound = 2 * nic_GBps * 143.0 / 144.0;
  const double across = collective(c, CollectiveOp::all_to_all, first(144), k_gib)[0];
  EXPECT_LE(across, bound * 1.01);
  EXPECT_GT(across, bound * 0.7);  // 77 % measured: PXN relays share the NVLink ports, 143 peer latencies
  const double inside = collective(c, CollectiveOp::all_to_all, first(72), k_gib)[0];
  EXPECT_GT(inside, 4 * bound);  // NVLink inside the rack, at NVLink 5's measured all-to-all
  const double measured = measured_model_GBps(protocol_efficiency(c).all_to_all, CollectiveOp::all_to_all, 72, k_gib);
  EXPECT_NEAR(inside, measured, measured * 0.01);
}

TEST(NvlinkDomain, AllReduceAcrossRacksPicksNvlsTree) {
  const ClusterSpec c = racks("gb200-nvl72", 2);
  const double ring = collective(c, CollectiveOp::all_reduce, first(144), k_gib, CollectiveAlgo::ring)[0];
  EXPECT_LE(ring, 900.0);
  const std::vector<double> best = collective(c, CollectiveOp::all_reduce, first(144), k_gib);
  EXPECT_EQ(best[1], static_cast<double>(CollectiveAlgo::nvls_tree));
  EXPECT_GT(best[0], ring);
  // The NVLS stage bounds it: algbw <= 900 / (1 + 1/72) x the NVLS-tree stage's efficiency,
  // below NVLS alone: two racks are no faster than one.
  const double stage_algbw = 900.0 * protocol_efficiency(c).nvls_tree / (1 + 1.0 / 72);
  EXPECT_LE(best[0], stage_algbw * 2 * 143 / 144 * 1.01);
  const double one_rack = collective(racks("gb200-nvl72", 1), CollectiveOp::all_reduce, first(72), k_gib)[0];
  EXPECT_LT(best[0], one_rack);
}

TEST(NvlinkDomain, AllReduceAcrossRacksIsBoundedByTheNics) {
  // Beyond 2 racks each of a rack's 32 NVLS-tree heads (NCCL's limit) carries up to 2 S/32 each
  // way through its NIC: algbw <= 32 x NIC / 2. With 47 GB/s NICs that is 752 GB/s, above the
  // NVLS stage (~400); with 100 Gb/s NICs (12.5 GB/s) 200 GB/s, and the NICs set the pace.
  ClusterSpec c = racks("gb200-nvl72", 20);
  const double nvls_bound = collective(c, CollectiveOp::all_reduce, first(1440), 8 * k_gib)[0];
  const double stage_algbw = 900.0 * protocol_efficiency(c).nvls_tree / (1 + 1.0 / 72);
  EXPECT_LE(nvls_bound, stage_algbw * 2 * 1439 / 1440 * 1.01);
  EXPECT_LE(nvls_bound, 32 * 47.0 / 2 * 2 * 1439 / 1440);
  c.nic_bandwidth_Bps = 100e9 / 8;
  const double slow = collective(c, CollectiveOp::all_reduce, first(1440), 8 * k_gib, CollectiveAlgo::nvls_tree)[0];
  const double nic_bound = 32 * 12.5 / 2 * 2 * 1439 / 1440;
  EXPECT_LE(slow, nic_bound * 1.01);
  EXPECT_GT(slow, nic_bound * 0.85);  // 9 loops of NVLS-tree's pipeline fill (nccl_rack_model.hpp): ~10 %
  // NCCL's choice then is the tree, whose channels use all 72 NICs of a rack (2 S/72 each way at
  // most): bounded by those, above NVLS-tree.
  const double best = collective(c, CollectiveOp::all_reduce, first(1440), 8 * k_gib)[0];
  EXPECT_GE(best, slow);
  EXPECT_LE(best, 72 * 12.5 / 2 * 2 * 1439 / 1440);
}

TEST(NvlinkDomain, NvlsTreeNeedsTwoGpusPerDomain) {
  // NCCL enables NVLS only with 2 or more GPUs per node (src/transport/nvls.cc): one GPU of
  // each of 2 DGX H100 nodes all-reduces with the ring or the tree; with 2 of each, NVLS-tree.
  ClusterSpec c = *cluster_preset("dgx-h100");
  c.nodes = 2;
  EXPECT_NE(collective(c, CollectiveOp::all_reduce, {0, 8}, k_gib)[1], static_cast<double>(CollectiveAlgo::nvls_tree));
  EXPECT_THROW(collective(c, CollectiveOp::all_reduce, {0, 8}, k_gib, CollectiveAlgo::nvls_tree), Error);
  EXPECT_EQ(collective(c, CollectiveOp::all_reduce, {0, 1, 8, 9}, k_gib)[1],
            static_cast<double>(CollectiveAlgo::nvls_tree));
}

TEST(NvlinkDomain, CollnetNeedsSharp) {
  ClusterSpec c = racks("gb200-nvl72", 2);
  EXPECT_THROW(collective(c, CollectiveOp::all_reduce, first(144), k_gib, CollectiveAlgo::collnet), Error);
  c.sharp = true;
  // Each NIC carries S/72 each way: the NVLink stage (2 (k-1)/k S per port) bounds it.
  const double collnet = collective(c, CollectiveOp::all_reduce, first(144), k_gib, CollectiveAlgo::collnet)[0];
  const double nvlink_GBps = 900 * protocol_efficiency(c).nvlink;
  const double bound = nvlink_GBps / (2 * 71.0 / 72) * 2 * 143 / 144;
  EXPECT_LE(collnet, bound * 1.01);
  EXPECT_GT(collnet, bound * 0.8);
  // With SHARP and 4 racks NCCL's model prefers CollNet or NVLS-tree to the ring.
  c.nodes = 72;
  const std::vector<double> best = collective(c, CollectiveOp::all_reduce, first(288), k_gib);
  EXPECT_TRUE(best[1] == static_cast<double>(CollectiveAlgo::collnet) ||
              best[1] == static_cast<double>(CollectiveAlgo::nvls_tree))
      << best[1];
}

TEST(NvlinkDomain, TensorParallelAcrossTraysIsNoWarning) {
  const ClusterSpec c = racks("gb200-nvl72", 2);
  const RankMapping inside(ParallelSpec{.tp = 72, .pp = 1, .dp = 2}, c);  // each TP group is one whole rack
  EXPECT_TRUE(inside.warnings().empty());
  EXPECT_EQ(inside.domain_of(71), 0);
  EXPECT_EQ(inside.domain_of(72), 1);
  EXPECT_EQ(inside.node_of(71), 17);
  const RankMapping beyond(ParallelSpec{.tp = 16, .pp = 1, .dp = 9}, c);  // ranks 64-79 straddle the racks
  ASSERT_EQ(beyond.warnings().size(), 1u);
  EXPECT_NE(beyond.warnings()[0].find("1 of 9 TP groups span NVLink domains of 72 GPUs"), std::string::npos)
      << beyond.warnings()[0];
}

TEST(NvlinkDomain, ClusterGraphHasOneNvswitchPerRack) {
  const ClusterSpec c = racks("gb200-nvl72", 2);
  const ClusterGraph g = build_cluster_graph(c);
  const TopologySummary t = summarize_topology(c, g);
  EXPECT_EQ(t.gpus, 144);
  EXPECT_EQ(t.nvswitches, 2);
  EXPECT_EQ(t.nics, 144);
  // One rack: its NVLink bisection, 36 GPUs x 900 GB/s.
  const ClusterSpec one = racks("gb200-nvl72", 1);
  EXPECT_DOUBLE_EQ(summarize_topology(one, build_cluster_graph(one)).bisection_Bps, 36 * 900e9);
}

TEST(NvlinkDomain, EthernetFabricsCarryTheirStatedEfficiency) {
  ClusterSpec c = racks("gb300-nvl72", 1);
  EXPECT_DOUBLE_EQ(protocol_efficiency(c).network, 0.94);  // XDR keeps NDR's (stated)
  c.network = Network::spectrum_x;
  EXPECT_DOUBLE_EQ(protocol_efficiency(c).network, 0.95);
  c.network = Network::roce;
  EXPECT_DOUBLE_EQ(protocol_efficiency(c).network, 0.60);
}

}  // namespace
}  // namespace trainsim::engine
