// Scale (issue 18): every size up to the limit builds its platform and plans its
// collectives without crashing, and the collectives that crashed before now simulate.
// Reduced for CI: platforms and plans up to 131,072 GPUs, simulations at 32,768; the
// sizes beyond (up to 2^20 GPUs) are measured by trainsim-bench-collective and
// trainsim-bench-step (bench/README.md, "Benchmarks and scale").

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "topologies/cluster_spec.hpp"
#include "topologies/fabric_layout.hpp"

namespace trainsim::engine {
namespace {

ClusterSpec dgx_h100(int gpus, Fabric fabric) {
  ClusterSpec c = *cluster_preset("dgx-h100");
  c.nodes = gpus / c.gpus_per_node;
  c.fabric = fabric;
  return c;
}

CollectiveCall all_reduce(int gpus, CollectiveAlgo algo) {
  CollectiveCall call;
  call.algo = algo;
  call.bytes = 1073741824.0;
  for (int g = 0; g < gpus; ++g) call.gpus.push_back(g);
  return call;
}

size_t transfers_of(const CommPlan& plan) {
  size_t n = 0;
  for (const CommPhase& p : plan.phases) n += p.transfers.size();
  return n;
}

TEST(Scale, EverySizeUpTo131072GpusBuildsItsPlatformAndPlans) {
  for (int gpus = 8; gpus <= 131072; gpus *= 4) {
    for (const Fabric f : {Fabric::rail_optimized, Fabric::fat_tree}) {
      const auto r = test::run_isolated([&] {
        Simulation sim;
        const Platform platform(dgx_h100(gpus, f));
        const double tree = static_cast<double>(transfers_of(plan_collective(all_reduce(gpus, CollectiveAlgo::automatic), platform)));
        const double ring = static_cast<double>(transfers_of(plan_collective(all_reduce(gpus, CollectiveAlgo::ring), platform)));
        return std::vector<double>{static_cast<double>(platform.endpoint_count()), tree, ring};
      });
      ASSERT_EQ(r.size(), 3u) << gpus;
      EXPECT_EQ(r[0], 2.0 * gpus) << gpus << " GPUs: a host per GPU and per NIC";
      EXPECT_GT(r[1], 0) << gpus;
      // One ring per NIC (channel), each with an edge per GPU.
      EXPECT_EQ(r[2], gpus > 8 ? 8.0 * gpus : gpus) << gpus;
    }
  }
}

// Crashed with SIGSEGV before (a stack overflow in SimGrid's constraint walk,
// sim/core/large_stack_call.hpp): the ring all-reduce on 32,768 GPUs.
TEST(Scale, RingAllReduceOn32768GpusCompletes) {
  const auto r = test::run_isolated([] {
    Simulation sim;
    const Platform platform(dgx_h100(32768, Fabric::rail_optimized));
    const CommActivity a = start_collective(platform, all_reduce(32768, CollectiveAlgo::ring));
    sim.run();
    return std::vector<double>{a.duration_s()};
  });
  ASSERT_EQ(r.size(), 1u);
  // 1 GiB over 8 rails of 400 Gb/s NICs (2(n-1)/n x S per channel, 5.4 ms) plus 2(n-1) hop
  // latencies along a chunk's path, 2 x (32,768 - 4,096) of them NVLink hops at 0.47 us
  // (27 ms) and the rest network hops: above 0.05 s, below 1 s.
  EXPECT_GT(r[0], 0.05);
  EXPECT_LT(r[0], 1.0);
}

// The largest cluster a scenario may have: the layout's switch counts cover every NIC.
TEST(Scale, LayoutsOf2To20GpusCoverEveryNic) {
  for (const Fabric f : {Fabric::rail_optimized, Fabric::fat_tree}) {
    ClusterSpec c = dgx_h100(1 << 20, f);
    for (const int levels : {2, 3}) {
      c.fat_tree_levels = levels;
      const FabricLayout l = fabric_layout(c);
      const long long nics = static_cast<long long>(c.nodes) * l.nics_per_node;
      EXPECT_GE(static_cast<long long>(l.leaves) * l.nics_per_leaf, nics);
      EXPECT_EQ(l.leaf_of_nic(c.nodes - 1, l.nics_per_node - 1), l.leaves - 1);
      EXPECT_LT(l.group_of_leaf(l.leaves - 1), l.groups);
      EXPECT_GT(l.leaf_uplink_Bps, 0);
    }
  }
}

}  // namespace
}  // namespace trainsim::engine
