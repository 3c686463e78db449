// An all-to-all run by a dispatcher kernel at its own rate (CollectiveCall::kernel_Bps,
// sim/engine/kernel_rate.hpp): alone it takes the send buffer over that rate, inside one
// NVLink domain and across domains; without a rate it stays NCCL's.

#include <gtest/gtest.h>

#include "sim/engine/plan_runner.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/engine/measured_collective.hpp"
#include "tests/engine/test_clusters.hpp"

namespace trainsim::engine {
namespace {

// The seconds an all-to-all of `bytes` per rank over the first `n` GPUs of `cluster` takes alone.
double all_to_all_s(const ClusterSpec& cluster, int n, double bytes, double kernel_Bps, double remote_share = 1.0) {
  return test::run_isolated([&] {
           Simulation sim;
           const Platform platform(cluster);
           CollectiveCall call;
           call.op = CollectiveOp::all_to_all;
           call.gpus = test::first_gpus(n);
           call.bytes = bytes;
           call.kernel_Bps = kernel_Bps;
           call.remote_share = remote_share;
           const CommActivity a = start_collective(platform, call);
           sim.run();
           return std::vector<double>{a.duration_s()};
         })
      .front();
}

constexpr double k_bytes = 256.0 * 1024 * 1024;

TEST(KernelRate, InsideADomainTheBufferMovesAtTheKernelsRate) {
  // One DGX B200 (NCCL's all-to-all at SimuMax's measured rate there) and 16 GPUs of an NVL72 rack.
  for (const auto& [preset, nodes, n] : {std::tuple<const char*, int, int>{"dgx-b200", 1, 8}, {"gb200-nvl72", 18, 16}}) {
    ClusterSpec c = *cluster_preset(preset);
    c.nodes = nodes;
    const double rate = 535.94e9;
    EXPECT_NEAR(all_to_all_s(c, n, k_bytes, rate), k_bytes / rate, 0.005 * k_bytes / rate) << preset;
    // Without a rate: NCCL's, a different time.
    EXPECT_GT(std::abs(all_to_all_s(c, n, k_bytes, 0.0) - k_bytes / rate), 0.02 * k_bytes / rate) << preset;
  }
}

TEST(KernelRate, AcrossDomainsTheBufferMovesAtTheKernelsRate) {
  // Two DGX H100 nodes, rail-optimized (remote bytes relayed over NVLink, PXN), at DeepEP's
  // once-per-node share of the remote bytes.
  const ClusterSpec c = test::preset_cluster("dgx-h100", 2, Fabric::rail_optimized);
  for (const double rate : {150e9, 400e9}) {
    const double s = all_to_all_s(c, 16, k_bytes, rate, 0.3);
    EXPECT_NEAR(s, k_bytes / rate, 0.005 * k_bytes / rate) << rate;
  }
}

}  // namespace
}  // namespace trainsim::engine
