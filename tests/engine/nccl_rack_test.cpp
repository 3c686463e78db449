// NCCL across NVL72 racks (sim/engine/nccl_rack_model.hpp): the algorithm and protocol NCCL's
// tuning model picks by size and rack count, its latency growing with the racks, the pipeline
// fill of NVLS-tree, and the simulated all-reduce held under what the heads' NICs carry.

#include <gtest/gtest.h>

#include <vector>

#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/nccl_rack_model.hpp"
#include "tests/engine/measured_collective.hpp"
#include "topologies/protocol_efficiency.hpp"

namespace trainsim::engine {
namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;
constexpr double k_gb200_nic = 400e9 / 8;

TEST(NcclRackModel, SmallBuffersTakeTheTreeWithLlLargeOnesNvlsTree) {
  // 8 full racks: the tree's latency (6.8 + 2 (71 x 0.6 + 3 x 5) us with LL) beats NVLS-tree's
  // (25 + 6 x 20.9 us) and the ring's 1,150 steps; NVLS-tree's bandwidth wins from a few
  // hundred KiB on.
  const RackGroup g{576, 8, k_gb200_nic};
  const RackEstimate tiny = nccl_rack_choice(CollectiveOp::all_reduce, 8, g);
  EXPECT_EQ(tiny.algo, CollectiveAlgo::double_binary_tree);
  EXPECT_EQ(tiny.protocol, NcclProtocol::ll);
  EXPECT_NEAR(tiny.latency_s, (6.8 + 2 * (71 * 0.6 + 3 * 5.0)) * 1e-6, 1e-9);
  const RackEstimate large = nccl_rack_choice(CollectiveOp::all_reduce, 8 * k_gib, g);
  EXPECT_EQ(large.algo, CollectiveAlgo::nvls_tree);
  EXPECT_EQ(large.protocol, NcclProtocol::simple);
  EXPECT_NEAR(large.latency_s, (25 + 2 * 3 * 20.9) * 1e-6, 1e-9);
  // The switch happens once, where NCCL's times cross: below it the tree is faster, above it
  // NVLS-tree, each by NCCL's own estimate.
  double switch_at = 0;
  CollectiveAlgo last = tiny.algo;
  for (double bytes = 8; bytes <= 8 * k_gib; bytes *= 2) {
    const CollectiveAlgo now = nccl_rack_choice(CollectiveOp::all_reduce, bytes, g).algo;
    if (now != last) {
      EXPECT_EQ(switch_at, 0) << "switched twice, at " << bytes;
      switch_at = bytes;
    }
    last = now;
  }
  EXPECT_GE(switch_at, 32 * 1024);
  EXPECT_LE(switch_at, 1024 * 1024);
  // NVLS-tree's bandwidth for a full rack: 32 heads x min(20 x 0.74 x 31/32 x 2, 40, 80) GB/s of
  // busbw (bwIntra 20 GB/s: 33 x 20 <= 721.8), algbw = busbw x 576 / 1150.
  EXPECT_NEAR(large.algo_Bps, 32 * (20 * 0.74 * 31 / 32 * 2) * 576 / 1150 * 1e9, 1e6);
}

TEST(NcclRackModel, TwoRacksTakeNvlsTreeAtEverySize) {
  // On 2 racks NVLS-tree's latency (25 + 2 x 20.9 us) is below the tree's (6.8 + 2 (71 x 0.6 +
  // 5) us): NCCL's model picks it from the smallest buffer on.
  const RackGroup g{144, 2, k_gb200_nic};
  for (const double bytes : {8.0, 1e6, 8 * k_gib})
    EXPECT_EQ(nccl_rack_choice(CollectiveOp::all_reduce, bytes, g).algo, CollectiveAlgo::nvls_tree) << bytes;
}

TEST(NcclRackModel, PatGathersAtOneGpuPerRack) {
  // PAT (NCCL 2.23+) runs all-gather and reduce-scatter at one GPU per node only: on 64 racks its
  // log-depth latency (8 + 6 x 14 / 3.5 + 2.8 x 64 us) beats the ring's 63 network steps; the
  // ring's bandwidth (PAT's busbw is x 0.75) takes large buffers back.
  const RackGroup one{64, 64, k_gb200_nic};
  const RackEstimate small = nccl_rack_choice(CollectiveOp::all_gather, 1 << 20, one);
  EXPECT_EQ(small.algo, CollectiveAlgo::pat);
  EXPECT_NEAR(small.latency_s, (8 + 6 * 14 / 3.5 + 2.8 * 64) * 1e-6, 1e-9);
  EXPECT_EQ(nccl_rack_choice(CollectiveOp::all_gather, k_gib, one).algo, CollectiveAlgo::ring);
  EXPECT_EQ(nccl_rack_choice(CollectiveOp::reduce_scatter, 1 << 20, one).algo, CollectiveAlgo::pat);
  // With 2 GPUs per rack PAT is off.
  for (const RackEstimate& e : nccl_rack_estimates(CollectiveOp::all_gather, 1 << 20, {128, 64, k_gb200_nic}))
    EXPECT_NE(e.algo, CollectiveAlgo::pat);
}

TEST(NcclRackModel, LatencyGrowsWithRacks) {
  double last_model = 0;
  double last_simulated = 0;
  for (const int count : {2, 4, 8, 16}) {
    const RackEstimate e = nccl_rack_choice(CollectiveOp::all_reduce, 8, {72 * count, count, k_gb200_nic});
    EXPECT_GT(e.latency_s, last_model) << count;
    last_model = e.latency_s;
    const double t = 8 / (test::measured_collective(test::racks("gb200-nvl72", count), CollectiveOp::all_reduce,
                                                    test::first_gpus(72 * count), 8)[0] *
                          1e9 / bus_bandwidth_factor(CollectiveOp::all_reduce, 72 * count));
    EXPECT_GT(t, last_simulated) << count;
    EXPECT_GE(t, e.latency_s * 0.999) << count;
    last_simulated = t;
  }
}

TEST(NcclRackModel, ManyRacksAreBoundedByTheHeadsNics) {
  // 8 racks x 72 GPUs, 8 GiB, NVLS-tree: beyond 2 racks each of a rack's h = 32 heads sends up
  // to 2 S/h through its own 400 Gb/s NIC (47 GB/s at NDR's 0.94): algbw <= h x 47 / 2. The
  // in-rack NVLS stage is slower still here, and the pipeline fill (7 loops of 24 x 32 x 128 KiB)
  // keeps it under the stage's own rate.
  const ClusterSpec c = test::racks("gb200-nvl72", 8);
  const double nic_GBps = 50 * protocol_efficiency(c).network;
  const double factor = 2.0 * 575 / 576;
  const std::vector<double> full = test::measured_collective(c, CollectiveOp::all_reduce, test::first_gpus(576), 8 * k_gib);
  EXPECT_EQ(full[1], static_cast<double>(CollectiveAlgo::nvls_tree));
  EXPECT_LE(full[0], 32 * nic_GBps / 2 * factor);
  const double stage_algbw = 900.0 * protocol_efficiency(c).nvls_tree / (1 + 1.0 / 72);
  EXPECT_LT(full[0], stage_algbw * factor);
  // 8 GPUs of each rack (A4's gradient groups): 8 heads, 8 NICs a rack, and the NICs bind.
  const std::vector<double> part =
      test::measured_collective(c, CollectiveOp::all_reduce, test::per_rack_gpus(8, 8), 8 * k_gib);
  const double part_bound = 8 * nic_GBps / 2 * 2.0 * 63 / 64;
  EXPECT_LE(part[0], part_bound * 1.01);
  EXPECT_GT(part[0], part_bound * 0.8);
}

TEST(NcclRackModel, NvlsTreeFillsItsPipelineInLoops) {
  // At 1 GiB on 8 racks a loop is 24 channels x 32 heads x 128 KiB = 96 MiB: the first reaches the
  // multicast after one in-rack stage (at NVLS-tree's algbw, the in-rack stages being the slower)
  // and 6 network hops (at 32 heads x 40 GB/s x 576 / 1150), so 1 GiB runs well below 8 GiB's busbw.
  const ClusterSpec c = test::racks("gb200-nvl72", 8);
  const RackEstimate e = nccl_rack_choice(CollectiveOp::all_reduce, k_gib, {576, 8, k_gb200_nic});
  const double loop = 24 * 32 * 128 * 1024.0;
  EXPECT_NEAR(e.fill_s, loop / e.algo_Bps + 6 * loop / (32 * 40e9 * 576 / 1150), 1e-9);
  const double one_gib = test::measured_collective(c, CollectiveOp::all_reduce, test::first_gpus(576), k_gib)[0];
  const double eight_gib =
      test::measured_collective(c, CollectiveOp::all_reduce, test::first_gpus(576), 8 * k_gib)[0];
  EXPECT_LT(one_gib, 0.8 * eight_gib);
}

TEST(NcclRackModel, TreeFillsAStepPerNetworkHopAndALinePassPerNvlinkHop) {
  // 8 racks of 64 GPUs, NVLS off, 16 MiB: the tree runs 30 channels on 15 graph channels of
  // 48 GB/s. A network hop hands on a step, an NVLink hop of the chain one pass of the threads'
  // lines (LL and LL128 flag every line); 7/10 of the warps reduce up, the rest broadcast down
  // (NVIDIA/nccl@5067397c enqueue.cc calcCollChunking, transport/net.cc, device/prims_ll*.h,
  // all_reduce.h runTreeSplit). Fill: 63 hops up and down the chain, 6 network hops, less the
  // largest grain.
  const RackGroup g{512, 8, k_gb200_nic, 64, false};
  const double bytes = 16.0 * 1024 * 1024;
  const auto fill = [&](NcclProtocol p) {
    for (const RackEstimate& e : nccl_rack_estimates(CollectiveOp::all_reduce, bytes, g))
      if (e.algo == CollectiveAlgo::double_binary_tree && e.protocol == p) return e.fill_s;
    ADD_FAILURE() << "no tree estimate";
    return 0.0;
  };
  // LL128: 640 threads, 14 warps up and 6 down, 1920 data bytes a warp; the 576000-byte chunk
  // halved while 16 MiB makes fewer than (1 + 3 + 6.4) x 64 / 64 chunks a channel (to 72000),
  // then a whole number of 1920-byte grains (37); at 48 x 120/128 GB/s.
  EXPECT_NEAR(fill(NcclProtocol::ll128), (63 * (14 + 6) * 1920.0 + 5 * 37 * 1920.0) / (48e9 * 120 / 128), 1e-9);
  // LL: 512 threads, 352 up and 160 down, 8 data bytes a line; a 32 KiB step; at half of 48 GB/s.
  EXPECT_NEAR(fill(NcclProtocol::ll), (63 * 512 * 8.0 + 5 * 32768.0) / 24e9, 1e-9);
  // Simple waits for a whole 512 KiB step on every hop.
  EXPECT_NEAR(fill(NcclProtocol::simple), (2 * 63 + 6 - 1) * 524288.0 / 48e9, 1e-9);
}

TEST(NcclRackModel, ProtocolFollowsTheChoice) {
  const ClusterSpec c = test::racks("gb200-nvl72", 8);
  const std::vector<double> r = test::run_isolated([&] {
    const Platform p = Platform::without_simgrid(c);
    CollectiveCall call;
    call.gpus = test::first_gpus(576);
    call.bytes = 8;
    const double small = static_cast<double>(chosen_protocol(call, p));
    call.bytes = 8 * k_gib;
    return std::vector<double>{small, static_cast<double>(chosen_protocol(call, p))};
  });
  EXPECT_EQ(r[0], static_cast<double>(NcclProtocol::ll));
  EXPECT_EQ(r[1], static_cast<double>(NcclProtocol::simple));
}

}  // namespace
}  // namespace trainsim::engine
