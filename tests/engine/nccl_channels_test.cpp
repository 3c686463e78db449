// NCCL's channels (CTAs) across NVL72 racks (sim/engine/nccl_channels.hpp): the CTA limits a
// communicator runs with, the communicator's channels from the search's, the channels one
// collective of a size runs on, and the bandwidth they reach, each against NVIDIA/nccl's code at
// v2.30.7-1 as the header states it.

#include <gtest/gtest.h>

#include <vector>

#include "sim/engine/nccl_channels.hpp"
#include "sim/engine/nccl_rack_model.hpp"
#include "tests/engine/measured_collective.hpp"

namespace trainsim::engine {
namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;
constexpr double k_gb200_nic = 400e9 / 8;

TEST(NcclChannels, TheEnvironmentReplacesEveryCommunicatorsOwnLimits) {
  // NVIDIA's MLPerf v5.1 GB200 runs: custom_communicator_cta.yaml gives dp_cp 1 to 8 and
  // tp_dp_cp 1 to 1, config_common.sh exports NCCL_MIN_CTAS=16, NCCL_MAX_CTAS=32 (init.cc
  // envConfigOverride: the environment wins).
  const NcclCtaLimits env{16, 32};
  for (const NcclCtaLimits own : {NcclCtaLimits{1, 8}, NcclCtaLimits{1, 1}}) {
    const NcclCtaLimits l = nccl_cta_limits(own, env);
    EXPECT_EQ(l.min_ctas, 16);
    EXPECT_EQ(l.max_ctas, 32);
  }
  // Without the environment the communicator's own stand.
  EXPECT_EQ(nccl_cta_limits({1, 8}, {}).max_ctas, 8);
  EXPECT_EQ(nccl_cta_limits({1, 8}, {}).min_ctas, 1);
  // Unset: NCCL's defaults, 1 and MAXCHANNELS; a minimum above the maximum comes down to it.
  EXPECT_EQ(nccl_cta_limits({}, {}).min_ctas, 1);
  EXPECT_EQ(nccl_cta_limits({}, {}).max_ctas, 64);
  EXPECT_EQ(nccl_cta_limits({}, {40, 8}).min_ctas, 8);
  EXPECT_EQ(nccl_cta_limits({}, {100, 100}).max_ctas, 64);
}

TEST(NcclChannels, TheCommunicatorDoublesTheSearchThenHonoursItsLimits) {
  const NcclCtaLimits none = nccl_cta_limits({}, {});
  // A full GB200 rack's ring: 15 search channels at 48 GB/s (15 x 48 <= 18 x 40.1), doubled.
  EXPECT_EQ(nccl_comm_channels(15, 48, 8, none), 30);
  // Doubled again across nodes when above 45 GB/s and still fewer than 16: 4 x 2 x 2.
  EXPECT_EQ(nccl_comm_channels(4, 48, 2, none), 16);
  // Not within one node, nor at 24 GB/s (the search's duplicated channels at 4 GPUs a rack).
  EXPECT_EQ(nccl_comm_channels(4, 48, 1, none), 8);
  EXPECT_EQ(nccl_comm_channels(8, 24, 3, none), 16);
  // maxCTAs cuts, minCTAs copies up.
  EXPECT_EQ(nccl_comm_channels(15, 48, 8, nccl_cta_limits({1, 8}, {})), 8);
  EXPECT_EQ(nccl_comm_channels(15, 48, 8, nccl_cta_limits({1, 1}, {})), 1);
  EXPECT_EQ(nccl_comm_channels(15, 48, 8, nccl_cta_limits({}, {40, 0})), 40);
  EXPECT_EQ(nccl_comm_channels(15, 48, 8, nccl_cta_limits({1, 8}, {16, 32})), 30);
  // NVLS-tree's own channels, clamped to the limits.
  EXPECT_EQ(nccl_nvls_channels(24, none), 24);
  EXPECT_EQ(nccl_nvls_channels(24, nccl_cta_limits({1, 8}, {})), 8);
  EXPECT_EQ(nccl_nvls_channels(24, nccl_cta_limits({}, {32, 0})), 32);
}

TEST(NcclChannels, SmallBuffersRunOnFewerChannels) {
  // Simple: 512 threads x 64 bytes a channel; 30 channels need 960 KiB.
  EXPECT_EQ(nccl_collective_channels(30, 960 * 1024, 512, 64), 30);
  EXPECT_EQ(nccl_collective_channels(30, 960 * 1024 - 1, 512, 64), 29);
  EXPECT_EQ(nccl_collective_channels(30, 512 * 1024, 512, 64), 16);
  EXPECT_EQ(nccl_collective_channels(30, 8, 512, 64), 1);
  // No threads (PAT): all channels.
  EXPECT_EQ(nccl_collective_channels(30, 8, 0, 64), 30);
}

TEST(NcclChannels, FewerCtasReachTheirShareOfNcclsBandwidth) {
  // 8 racks of 64 GPUs, NVLS off (NVIDIA's MLPerf GB200 runs): a large all-reduce runs on the
  // ring, 30 channels, at NCCL's model bandwidth; capped at 8 CTAs it reaches 8/30 of it, and
  // NCCL's choice (its model ignores the cap) is the same.
  RackGroup g{512, 8, k_gb200_nic};
  g.nvls = false;
  const RackEstimate free = nccl_rack_choice(CollectiveOp::all_reduce, 4 * k_gib, g);
  EXPECT_EQ(free.algo, CollectiveAlgo::ring);
  EXPECT_EQ(free.channels, 30);
  // LL128 (its 1,008 NVLink steps at 1.9 us against Simple's at 3.4 us, x 1.4, outweigh its
  // bandwidth): busbw = min(15 channels x 48 GB/s x 0.92, 15 x 40), algbw = busbw x n / 2(n - 1).
  EXPECT_EQ(free.protocol, NcclProtocol::ll128);
  EXPECT_NEAR(free.algo_Bps, 15 * 40e9 * 512 / 1022, 1e3);
  EXPECT_DOUBLE_EQ(free.channel_algo_Bps, free.algo_Bps);
  g.ctas = nccl_cta_limits({1, 8}, {});
  const RackEstimate capped = nccl_rack_choice(CollectiveOp::all_reduce, 4 * k_gib, g);
  EXPECT_EQ(capped.algo, free.algo);
  EXPECT_DOUBLE_EQ(capped.time_s, free.time_s);
  EXPECT_EQ(capped.channels, 8);
  EXPECT_NEAR(capped.channel_algo_Bps, free.algo_Bps * 8 / 30, 1e3);
  // Copies beyond the default add nothing.
  g.ctas = nccl_cta_limits({}, {48, 0});
  const RackEstimate copied = nccl_rack_choice(CollectiveOp::all_reduce, 4 * k_gib, g);
  EXPECT_EQ(copied.channels, 48);
  EXPECT_DOUBLE_EQ(copied.channel_algo_Bps, free.algo_Bps);
}

TEST(NcclChannels, NvlsTreeRunsOnItsTunedChannels) {
  // Full racks with 400 Gb/s NICs beyond 2 racks: 24 channels (nvls.cc ncclNvlsTreeSm100Tuning);
  // on 2 racks 32.
  const RackGroup eight{576, 8, k_gb200_nic};
  const RackEstimate e = nccl_rack_choice(CollectiveOp::all_reduce, 8 * k_gib, eight);
  EXPECT_EQ(e.algo, CollectiveAlgo::nvls_tree);
  EXPECT_EQ(e.channels, 24);
  const RackGroup two{144, 2, k_gb200_nic};
  EXPECT_EQ(nccl_rack_choice(CollectiveOp::all_reduce, 8 * k_gib, two).channels, 32);
}

TEST(NcclChannels, TheSimulationRunsNoFasterThanNcclsModelAtItsChannels) {
  // 8 GB200 racks of 64 GPUs, NVLS off (NVIDIA's MLPerf GB200 runs). A 256 MiB all-reduce runs
  // NCCL's tree with LL128 on 30 channels: busbw min(15 x 48 x 0.92, 15 x 24) x 120/128, at most
  // 15 x 20 (LL128's per-channel cap beyond 2 racks), algbw half of it; the links alone (every
  // GPU's NIC) would carry it faster. The simulated tree's time is NCCL's latency and the tree's
  // fill plus the bytes at that bandwidth, within 2 % (the flows share their own links). LL128's
  // fill is small (a step on 6 network hops, a pass of lines on the 126 NVLink hops), so the
  // automatic choice runs the tree, as NCCL's model picks (algorithm_selection.hpp: the least
  // charged time).
  ClusterSpec c = test::racks("gb200-nvl72", 8);
  c.nvls = false;
  RackGroup g{512, 8, k_gb200_nic, 64, false};
  const double bytes = 256.0 * 1024 * 1024;
  const RackEstimate e = nccl_rack_choice(CollectiveOp::all_reduce, bytes, g);
  ASSERT_EQ(e.algo, CollectiveAlgo::double_binary_tree);
  EXPECT_EQ(e.protocol, NcclProtocol::ll128);
  EXPECT_EQ(e.channels, 30);
  EXPECT_NEAR(e.channel_algo_Bps, 15 * 20e9 / 2, 1e3);  // tree correction at 256 MiB: 1.0
  const std::vector<int> gpus = test::per_rack_gpus(8, 64);
  const std::vector<double> r =
      test::measured_collective(c, CollectiveOp::all_reduce, gpus, bytes, CollectiveAlgo::double_binary_tree);
  EXPECT_EQ(test::measured_collective(c, CollectiveOp::all_reduce, gpus, bytes)[1],
            static_cast<double>(CollectiveAlgo::double_binary_tree));
  const double expected_s = e.latency_s + e.fill_s + bytes / e.channel_algo_Bps;
  const double simulated_s = bytes / (r[0] * 1e9 / (2.0 * 511 / 512));
  EXPECT_NEAR(simulated_s, expected_s, 0.02 * expected_s);
}

}  // namespace
}  // namespace trainsim::engine
