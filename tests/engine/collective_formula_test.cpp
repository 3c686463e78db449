// On a contention-free fabric the simulated collectives match the closed forms of
// public.md D1 (nccl-tests PERFORMANCE.md): ring all-reduce 2(n-1)/n x S/B + 2(n-1) alpha,
// all-gather and reduce-scatter (n-1)/n x S/B + (n-1) alpha, each plus NCCL's base latency
// (tuning.cc's model, public.md D1).

#include <gtest/gtest.h>

#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/collective.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/engine/test_clusters.hpp"

namespace trainsim::engine {
namespace {

using test::k_mib;
using test::k_nic_Bps;

// One GPU per node on one switch: every ring edge is NIC to NIC through the switch.
constexpr int k_nodes = 8;
constexpr double k_alpha_s = test::k_nic_latency_s + test::k_switch_latency_s;

// NCCL's base latency for the call simulate() makes (nccl_latency.hpp, public.md D1).
double base_s(CollectiveOp op, double bytes) {
  return test::run_isolated([=] {
    const Platform platform(test::small_cluster(k_nodes, 1, Fabric::single_switch));
    CollectiveCall call;
    call.op = op;
    call.algo = CollectiveAlgo::ring;
    call.bytes = bytes;
    for (int g = 0; g < k_nodes; ++g) call.gpus.push_back(g);
    return std::vector<double>{nccl_base_latency_s(call, platform)};
  })[0];
}

double simulate(CollectiveOp op, double bytes, CollectiveAlgo algo = CollectiveAlgo::ring) {
  return test::run_isolated([=] {
    Simulation sim;
    const Platform platform(test::small_cluster(k_nodes, 1, Fabric::single_switch));
    CollectiveCall call;
    call.op = op;
    call.algo = algo;
    call.bytes = bytes;
    for (int g = 0; g < k_nodes; ++g) call.gpus.push_back(g);
    const CommActivity a = start_collective(platform, call);
    sim.run();
    return std::vector<double>{a.duration_s()};
  })[0];
}

class RingFormula : public ::testing::TestWithParam<double> {};

TEST_P(RingFormula, AllReduceMatchesClosedForm) {
  const double s = GetParam();
  const double n = k_nodes;
  const double expected = 2 * (n - 1) / n * s / k_nic_Bps + 2 * (n - 1) * k_alpha_s + base_s(CollectiveOp::all_reduce, s);
  EXPECT_NEAR(simulate(CollectiveOp::all_reduce, s), expected, 0.01 * expected);
}

TEST_P(RingFormula, AllGatherMatchesClosedForm) {
  const double s = GetParam();
  const double n = k_nodes;
  const double expected = (n - 1) / n * s / k_nic_Bps + (n - 1) * k_alpha_s + base_s(CollectiveOp::all_gather, s);
  EXPECT_NEAR(simulate(CollectiveOp::all_gather, s), expected, 0.01 * expected);
}

TEST_P(RingFormula, ReduceScatterMatchesClosedForm) {
  const double s = GetParam();
  const double n = k_nodes;
  const double expected =
      (n - 1) / n * s / k_nic_Bps + (n - 1) * k_alpha_s + base_s(CollectiveOp::reduce_scatter, s);
  EXPECT_NEAR(simulate(CollectiveOp::reduce_scatter, s), expected, 0.01 * expected);
}

// Latency-bound, balanced and bandwidth-bound sizes.
INSTANTIATE_TEST_SUITE_P(Sizes, RingFormula, ::testing::Values(64e3, 1 * k_mib, 256 * k_mib));

TEST(CollectiveFormula, BroadcastPipelinesTheWholeBufferDownTheRing) {
  const double s = 256 * k_mib;
  const double expected = s / k_nic_Bps + (k_nodes - 1) * k_alpha_s;
  EXPECT_NEAR(simulate(CollectiveOp::broadcast, s), expected, 0.01 * expected);
}

TEST(CollectiveFormula, AllToAllSendsEveryPeerItsShare) {
  const double s = 256 * k_mib;
  const double expected = (k_nodes - 1.0) / k_nodes * s / k_nic_Bps + k_alpha_s;
  EXPECT_NEAR(simulate(CollectiveOp::all_to_all, s, CollectiveAlgo::automatic), expected, 0.01 * expected);
}

TEST(CollectiveFormula, SendRecvMovesOneMessagePerRank) {
  const double s = 256 * k_mib;
  const double expected = s / k_nic_Bps + k_alpha_s;
  EXPECT_NEAR(simulate(CollectiveOp::send_recv, s, CollectiveAlgo::automatic), expected, 0.01 * expected);
}

TEST(CollectiveFormula, DoubleBinaryTreeMovesTwiceTheBufferThroughInnerNodes) {
  // Each tree carries S/2 up and S/2 down; a node inner in one tree (parent + 2 children)
  // and a leaf in the other sends 4 x S/2 per direction: NCCL's tree algBw = busBw / 2
  // (public.md D1). Latency 2 x depth hops, depth = log2(8) = 3.
  const double s = 256 * k_mib;
  const double expected = 2 * s / k_nic_Bps + 2 * 3 * k_alpha_s;
  EXPECT_NEAR(simulate(CollectiveOp::all_reduce, s, CollectiveAlgo::double_binary_tree), expected, 0.01 * expected);
}

TEST(CollectiveFormula, HierarchicalAllReduceIsTheSumOfItsPhases) {
  // 4 nodes x 2 GPUs: NVLink reduce-scatter, 2 concurrent rings over the nodes sharing
  // each node's single NIC, NVLink all-gather.
  const double s = 256 * k_mib;
  const double t = test::run_isolated([=] {
    Simulation sim;
    const Platform platform(test::small_cluster(4, 2, Fabric::single_switch));
    CollectiveCall call;
    call.algo = CollectiveAlgo::hierarchical;
    call.bytes = s;
    call.gpus = {0, 1, 2, 3, 4, 5, 6, 7};
    const CommActivity a = start_collective(platform, call);
    sim.run();
    return std::vector<double>{a.duration_s()};
  })[0];
  const double intra = 0.5 * s / test::k_nvlink_Bps + 1 * test::k_nvlink_latency_s;
  // Two rings of S/2 each share one NIC per node: 2 x 2(N-1)/N x S/2 bytes per NIC.
  const double inter = 2 * (2 * 3.0 / 4 * s / 2) / k_nic_Bps + 2 * 3 * k_alpha_s;
  const double expected = 2 * intra + inter;
  EXPECT_NEAR(t, expected, 0.01 * expected);
}

TEST(CollectiveFormula, SameInputsGiveBitIdenticalTimes) {
  const double a = simulate(CollectiveOp::all_reduce, 3 * k_mib, CollectiveAlgo::double_binary_tree);
  const double b = simulate(CollectiveOp::all_reduce, 3 * k_mib, CollectiveAlgo::double_binary_tree);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace trainsim::engine

namespace trainsim::engine {
namespace {

// Small messages pay NCCL's latency floor (public.md D1, tuning.cc's model with the LL
// protocol NCCL picks for them: base 3.6 us, 0.47 us per NVLink hop), not less: 8 KB on the
// 8 H100 of one DGX node.
double dgx_h100_time_s(CollectiveOp op, double bytes, int gpus) {
  return test::run_isolated([=] {
    Simulation sim;
    ClusterSpec cluster = *cluster_preset("dgx-h100");
    cluster.nodes = (gpus + 7) / 8;
    const Platform platform(cluster);
    CollectiveCall call;
    call.op = op;
    call.bytes = bytes;
    for (int g = 0; g < gpus; ++g) call.gpus.push_back(g);
    const CommActivity a = start_collective(platform, call);
    sim.run();
    return std::vector<double>{a.duration_s()};
  })[0];
}

TEST(CollectiveFormula, SmallMessagesPayNcclsLatencyFloor) {
  const double kb8 = 8192;
  EXPECT_NEAR(dgx_h100_time_s(CollectiveOp::all_reduce, kb8, 8), (3.6 + 14 * 0.47) * 1e-6, 0.05 * 10.2e-6);
  EXPECT_NEAR(dgx_h100_time_s(CollectiveOp::all_gather, kb8, 8), (3.6 + 7 * 0.47) * 1e-6, 0.05 * 6.9e-6);
  EXPECT_NEAR(dgx_h100_time_s(CollectiveOp::reduce_scatter, kb8, 8), (3.6 + 7 * 0.47) * 1e-6, 0.05 * 6.9e-6);
  // All-to-all: the base and one wave of NCCL's concurrent send/receive batches
  // (pairwise_algorithm.hpp), at least.
  EXPECT_GE(dgx_h100_time_s(CollectiveOp::all_to_all, kb8, 8), (3.6 + 0.47) * 1e-6 * 0.99);
  // 1 MB over 1,024 GPUs (1 KB to each peer): a network hop for each of the 1,016 peers in other
  // nodes, which the GPU's proxy thread serves one after another: milliseconds.
  EXPECT_GE(dgx_h100_time_s(CollectiveOp::all_to_all, 1 << 20, 1024), 1016 * 0.47e-6);
}

// A ring across nodes pays each hop its own latency along a chunk's path, as NCCL's ring
// model does (public.md D1: base + (nsteps - nInterSteps) x NVLink hop + nInterSteps x
// network hop), not its slowest hop at every step. 8 bytes gathered by the 16 H100 of 2 DGX
// nodes: each channel's ring crosses the network twice, and a chunk's 15 hops are at worst 13
// NVLink hops and both network hops (NIC and switch latency, the presets' 2.7 us): 15.1 us,
// where the slowest hop at every step made it 3.6 + 15 x 2.7 = 44.1 us.
TEST(CollectiveFormula, RingAcrossNodesPaysEachHopItsOwnLatency) {
  const ClusterSpec dgx = *cluster_preset("dgx-h100");
  const double network_hop_s = dgx.nic_latency_s + dgx.switch_latency_s;
  const double expected = 3.6e-6 + 13 * dgx.nvlink_latency_s + 2 * network_hop_s;
  EXPECT_NEAR(dgx_h100_time_s(CollectiveOp::all_gather, 8, 16), expected, 0.02 * expected);
  EXPECT_NEAR(dgx_h100_time_s(CollectiveOp::reduce_scatter, 8, 16), expected, 0.02 * expected);
}

}  // namespace
}  // namespace trainsim::engine
