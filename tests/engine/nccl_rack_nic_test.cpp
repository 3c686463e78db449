// NCCL across NVL72 racks by the NICs the cluster preset states (sim/engine/nccl_rack_model.hpp):
// NCCL's choice where NVLS is off (NCCL_NVLS_ENABLE=0, cluster.nvls = false), checked against
// what NCCL 2.27.3 picked and measured on GB200 racks, and many racks bounded by the NIC share
// at large sizes and by NCCL's latency at small ones.

#include <gtest/gtest.h>

#include <vector>

#include "sim/core/error.hpp"
#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/nccl_rack_model.hpp"
#include "tests/engine/measured_collective.hpp"
#include "topologies/protocol_efficiency.hpp"

namespace trainsim::engine {
namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

TEST(NcclRackNics, NvlsOffPicksTheRingAsNccl2273DidOnThreeGb200Racks) {
  // NVIDIA/nccl#1801 (NCCL 2.27.3, GB200 NVL72, NCCL_NVLS_ENABLE=0): all-reduce of 16 GiB over
  // three NVL partitions on three racks, 4 GPUs each (one tray) and 8 each (two trays): NCCL
  // chose the ring both times (busbw 196.72 and 393.66 GB/s measured; its forced tree measured
  // 234.43 and 485.68, faster, which NCCL's model does not see: the point). NCCL's model
  // here: ring 4 or 8 channels at 48 GB/s (one per NIC) against the tree's 24 GB/s per channel
  // beyond 2 nodes, halved for the all-reduce.
  ClusterSpec c = test::racks("gb200-nvl72", 3);
  c.nvls = false;
  for (const int per_rack : {4, 8}) {
    const RackGroup g{3 * per_rack, 3, 400e9 / 8, per_rack, false};
    EXPECT_EQ(nccl_rack_choice(CollectiveOp::all_reduce, 16 * k_gib, g).algo, CollectiveAlgo::ring) << per_rack;
    const std::vector<double> r =
        test::measured_collective(c, CollectiveOp::all_reduce, test::per_rack_gpus(3, per_rack), 16 * k_gib);
    EXPECT_EQ(r[1], static_cast<double>(CollectiveAlgo::ring)) << per_rack;
    // Measured: 196.72 (4 a rack), 393.66 (8 a rack); the ring's NICs bind (one channel per NIC
    // at NDR's efficiency). A check, not a fit: within 6 %.
    const double measured = per_rack == 4 ? 196.72 : 393.66;
    EXPECT_NEAR(r[0], measured, 0.06 * measured) << per_rack;
  }
  // With NVLS on, the same groups run NVLS-tree (NCCL's default on GB200).
  const RackGroup on{24, 3, 400e9 / 8, 8, true};
  EXPECT_EQ(nccl_rack_choice(CollectiveOp::all_reduce, 16 * k_gib, on).algo, CollectiveAlgo::nvls_tree);
}

TEST(NcclRackNics, NvlsOffRefusesNvlsAndNvlsTree) {
  ClusterSpec c = test::racks("gb200-nvl72", 2);
  c.nvls = false;
  const Platform p = Platform::without_simgrid(c);
  CollectiveCall call;
  call.bytes = k_gib;
  call.gpus = test::first_gpus(72);
  EXPECT_NE(choose_algorithm(call, p), CollectiveAlgo::nvls);
  call.gpus = test::first_gpus(144);
  EXPECT_NE(choose_algorithm(call, p), CollectiveAlgo::nvls_tree);
  call.algo = CollectiveAlgo::nvls_tree;
  EXPECT_THROW(choose_algorithm(call, p), InputError);
}

TEST(NcclRackNics, ManyRacksAreBoundByTheNicShareLargeAndByLatencySmall) {
  // 8 racks x 16 GPUs. With the preset's 4 NICs a tray (one per GPU) a rack's 16 NICs carry the
  // inter-rack traffic; with 2 a tray (a stated variant) 8, and the channels and heads follow
  // the NICs: large buffers run at most at the NIC share (ring: one channel per NIC; NVLS-tree:
  // h heads, 2 S/h each way), so half the NICs give about half the bus bandwidth.
  const std::vector<int> gpus = test::per_rack_gpus(8, 16);
  ClusterSpec four = test::racks("gb200-nvl72", 8);
  ClusterSpec two = four;
  two.nics_per_node = 2;
  const double nic_GBps = 50 * protocol_efficiency(four).network;
  const std::vector<double> big4 = test::measured_collective(four, CollectiveOp::all_reduce, gpus, 8 * k_gib);
  const std::vector<double> big2 = test::measured_collective(two, CollectiveOp::all_reduce, gpus, 8 * k_gib);
  EXPECT_LE(big4[0], 16 * nic_GBps * 1.01);
  EXPECT_LE(big2[0], 8 * nic_GBps * 1.01);
  EXPECT_GT(big2[0], 0.8 * 8 * nic_GBps / 2 * 2.0 * 127 / 128);
  EXPECT_LT(big2[0], 0.6 * big4[0]);
  // The ring across the racks, likewise (all-gather: ring only at 16 GPUs a rack).
  const std::vector<double> ag2 = test::measured_collective(two, CollectiveOp::all_gather, gpus, 8 * k_gib);
  EXPECT_LE(ag2[0], 8 * nic_GBps * 1.01);
  EXPECT_GT(ag2[0], 0.8 * 8 * nic_GBps);
  // Small buffers: NCCL's latency for its pick, not the bytes, sets the time.
  const RackGroup g{128, 8, 400e9 / 8, 16, true};
  const RackEstimate tiny = nccl_rack_choice(CollectiveOp::all_reduce, 8, g);
  const double small_busbw = test::measured_collective(four, CollectiveOp::all_reduce, gpus, 8)[0];
  const double small_s = 8 / (small_busbw * 1e9) * 2.0 * 127 / 128;
  EXPECT_GE(small_s, tiny.latency_s * 0.999);
  EXPECT_LE(small_s, tiny.latency_s * 1.1);
}

}  // namespace
}  // namespace trainsim::engine
