// The calibrated protocol efficiency reproduces NCCL's measured single-node bus bandwidth
// (public.md D2): ~370 GB/s on 8 H100 (ring), ~235 GB/s on 8 A100, within 10%; NVLink
// SHARP's efficiency, fitted on 8 H100 (~480 GB/s), predicts the H200 figures for 4 to 8
// GPUs within 3 %.

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/collective.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/engine/measured_collective.hpp"

namespace trainsim::engine {
namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

// `op` of `bytes` over the first `gpus` GPUs of `cluster`: its bus bandwidth (GB/s) and the
// algorithm that ran.
std::vector<double> collective(const ClusterSpec& cluster, CollectiveOp op, int gpus, double bytes,
                               CollectiveAlgo algo = CollectiveAlgo::automatic) {
  return test::measured_collective(cluster, op, test::first_gpus(gpus), bytes, algo);
}

std::vector<double> all_reduce(const ClusterSpec& cluster, int gpus, double bytes,
                               CollectiveAlgo algo = CollectiveAlgo::automatic) {
  return collective(cluster, CollectiveOp::all_reduce, gpus, bytes, algo);
}

std::vector<double> node_all_reduce(const std::string& preset, int gpus, double bytes,
                                    CollectiveAlgo algo = CollectiveAlgo::automatic) {
  return all_reduce(*cluster_preset(preset), gpus, bytes, algo);
}

double node_ring_bus_bandwidth_GBps(const std::string& preset) {
  return node_all_reduce(preset, 8, k_gib, CollectiveAlgo::ring)[0];
}

TEST(Calibration, DgxH100RingAllReduceBusBandwidth) {
  EXPECT_NEAR(node_ring_bus_bandwidth_GBps("dgx-h100"), 370.0, 37.0);
}

TEST(Calibration, DgxA100RingAllReduceBusBandwidth) {
  EXPECT_NEAR(node_ring_bus_bandwidth_GBps("dgx-a100"), 235.0, 23.5);
}

TEST(Calibration, DgxH100ChoosesNvlinkSharpForLargeAllReduces) {
  // ~480 GB/s with NVLS (public.md D2, NVIDIA/nccl-tests#212, sjeaugey): the fitted figure.
  const std::vector<double> r = node_all_reduce("dgx-h100", 8, k_gib);
  EXPECT_EQ(r[1], static_cast<double>(CollectiveAlgo::nvls));
  EXPECT_NEAR(r[0], 480.0, 480.0 * 0.03);
}

TEST(Calibration, HgxH200NvlinkSharpAcrossGpuCounts) {
  // stas00/ml-engineering, 8 GiB on 4..8 H200 (public.md D2): predicted, not fitted. At 4
  // GPUs NCCL's measured figure is the ring's (363.3); our NVLS is chosen and runs at
  // about the ring's rate.
  const std::vector<std::pair<int, double>> measured{{4, 363.3}, {5, 414.2}, {6, 435.6}, {7, 460.0}, {8, 473.1}};
  for (const auto& [gpus, busbw] : measured)
    EXPECT_NEAR(node_all_reduce("hgx-h200", gpus, 8 * k_gib)[0], busbw, busbw * 0.03) << gpus << " GPUs";
}

TEST(Calibration, NoNvlinkSharpOnA100OrAcrossNodes) {
  EXPECT_EQ(node_all_reduce("dgx-a100", 8, k_gib)[1], static_cast<double>(CollectiveAlgo::ring));
  EXPECT_THROW(node_all_reduce("dgx-a100", 8, k_gib, CollectiveAlgo::nvls), Error);
  ClusterSpec two_nodes = *cluster_preset("dgx-h100");
  two_nodes.nodes = 2;
  EXPECT_NE(all_reduce(two_nodes, 16, k_gib)[1], static_cast<double>(CollectiveAlgo::nvls));
  EXPECT_THROW(all_reduce(two_nodes, 16, k_gib, CollectiveAlgo::nvls), Error);
}

TEST(Calibration, MultiNodeH100RingIsBoundByTheNics) {
  // 4 DGX H100 nodes, rail-optimized: 8 channels, one per NIC; NCCL measures ~365 GB/s
  // busbw on 4 nodes (public.md D2, nccl-tests#309) against 8 x 47 = 376 GB/s of NICs.
  ClusterSpec c = *cluster_preset("dgx-h100");
  c.nodes = 4;
  c.fabric = Fabric::rail_optimized;
  const double busbw = all_reduce(c, 32, k_gib, CollectiveAlgo::ring)[0];
  EXPECT_NEAR(busbw, 365.84, 36.6);
}

// Predictions from the efficiencies fitted above (public.md D2), none fitted to these.
TEST(Calibration, HgxH200AllGatherAndReduceScatterRunAtTheRingRate) {
  // stas00/ml-engineering, 16 GiB on 8 H200: all-gather 361.4, reduce-scatter 362.9 GB/s.
  const ClusterSpec c = *cluster_preset("hgx-h200");
  EXPECT_NEAR(collective(c, CollectiveOp::all_gather, 8, 16 * k_gib)[0], 361.4, 361.4 * 0.05);
  EXPECT_NEAR(collective(c, CollectiveOp::reduce_scatter, 8, 16 * k_gib)[0], 362.9, 362.9 * 0.05);
}

TEST(Calibration, MultiNodeA100RingIsBoundByTheHdrNics) {
  // DGX A100 with 8 HDR adapters, multi-node all-reduce: 192 GB/s (NVIDIA/nccl#812, AddyLaddy);
  // with 4 adapters per node "96 target" (nccl-tests#119, sjeaugey; measured peak ~96).
  ClusterSpec c = *cluster_preset("dgx-a100");
  c.nodes = 4;
  EXPECT_NEAR(all_reduce(c, 32, 8 * k_gib, CollectiveAlgo::ring)[0], 192.0, 192.0 * 0.05);
  c.nodes = 3;
  c.nics_per_node = 4;
  EXPECT_NEAR(all_reduce(c, 24, 8 * k_gib, CollectiveAlgo::ring)[0], 96.0, 96.0 * 0.05);
}

}  // namespace
}  // namespace trainsim::engine
