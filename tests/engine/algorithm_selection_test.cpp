// Which algorithm runs a call, and the calls the engine refuses.

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/collective_algorithm.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/engine/test_clusters.hpp"

namespace trainsim::engine {
namespace {

enum Outcome { k_ok = 0, k_input_error = 1, k_other_error = 2 };

// Runs `check` against a 4-node DGX H100 platform in a child; returns its numbers.
std::vector<double> on_dgx_platform(const std::function<std::vector<double>(const Platform&)>& check) {
  return test::run_isolated([&] {
    ClusterSpec c = *cluster_preset("dgx-h100");
    c.nodes = 4;
    c.fabric = Fabric::rail_optimized;
    Simulation sim;
    const Platform platform(c);
    return check(platform);
  });
}

double outcome_of(const std::function<void()>& f) {
  try {
    f();
    return k_ok;
  } catch (const InputError&) {
    return k_input_error;
  } catch (const std::exception&) {
    return k_other_error;
  }
}

CollectiveCall call_of(CollectiveOp op, std::vector<int> gpus, double bytes,
                       CollectiveAlgo algo = CollectiveAlgo::automatic) {
  CollectiveCall c;
  c.op = op;
  c.gpus = std::move(gpus);
  c.bytes = bytes;
  c.algo = algo;
  return c;
}

std::vector<int> first(int n) {
  std::vector<int> g;
  for (int i = 0; i < n; ++i) g.push_back(i);
  return g;
}

TEST(AlgorithmSelection, FollowsNcclsTuningModel) {
  const auto picks = on_dgx_platform([](const Platform& p) {
    return std::vector<double>{
        static_cast<double>(choose_algorithm(call_of(CollectiveOp::all_reduce, first(32), 1024), p)),
        static_cast<double>(choose_algorithm(call_of(CollectiveOp::all_reduce, first(32), 8.0 * (1 << 30)), p)),
        static_cast<double>(choose_algorithm(call_of(CollectiveOp::all_gather, first(32), 1024), p)),
        static_cast<double>(choose_algorithm(call_of(CollectiveOp::all_to_all, first(32), 1024), p)),
        static_cast<double>(choose_algorithm(call_of(CollectiveOp::send_recv, first(2), 1024), p)),
    };
  });
  EXPECT_EQ(picks[0], static_cast<double>(CollectiveAlgo::double_binary_tree));  // small: latency wins
  // Large on 4 nodes: bandwidth. (At 1 GiB NVLS-tree, which carries the ring's NIC volume
  // beyond 2 nodes, still wins on latency: nvls_tree_algorithm.hpp.)
  EXPECT_EQ(picks[1], static_cast<double>(CollectiveAlgo::ring));
  EXPECT_EQ(picks[2], static_cast<double>(CollectiveAlgo::ring));
  EXPECT_EQ(picks[3], static_cast<double>(CollectiveAlgo::pairwise));
  EXPECT_EQ(picks[4], static_cast<double>(CollectiveAlgo::direct));
}

TEST(AlgorithmSelection, RejectsAnAlgorithmThatDoesNotImplementTheOperation) {
  const auto r = on_dgx_platform([](const Platform& p) {
    return std::vector<double>{outcome_of([&] {
      choose_algorithm(call_of(CollectiveOp::all_gather, first(8), 1024, CollectiveAlgo::double_binary_tree), p);
    })};
  });
  EXPECT_EQ(r[0], k_input_error);
}

TEST(AlgorithmSelection, RejectsAGpuOutsideThePlatform) {
  const auto r = on_dgx_platform([](const Platform& p) {
    return std::vector<double>{outcome_of([&] {
      choose_algorithm(call_of(CollectiveOp::all_reduce, {0, 32}, 1024), p);
    })};
  });
  EXPECT_EQ(r[0], k_input_error);
}

TEST(AlgorithmSelection, RejectsARepeatedGpu) {
  const auto r = on_dgx_platform([](const Platform& p) {
    return std::vector<double>{outcome_of([&] {
      choose_algorithm(call_of(CollectiveOp::all_reduce, {0, 1, 0}, 1024), p);
    })};
  });
  EXPECT_EQ(r[0], k_input_error);
}

TEST(AlgorithmSelection, RejectsARepeatedGpuAfterIncreasingOnes) {
  // Increasing GPUs skip the set of GPUs seen; a repeat after them still goes through it.
  const auto r = on_dgx_platform([](const Platform& p) {
    return std::vector<double>{
        outcome_of([&] { choose_algorithm(call_of(CollectiveOp::all_reduce, {0, 1, 8, 9, 1}, 1024), p); }),
        outcome_of([&] { choose_algorithm(call_of(CollectiveOp::all_reduce, {0, 1, 8, 9, 10}, 1024), p); })};
  });
  EXPECT_EQ(r[0], k_input_error);
  EXPECT_EQ(r[1], k_ok);
}

// gpus_by_node groups in order of first appearance whatever the order of the GPUs: domain by
// domain, domains revisited, and a domain below those seen (the map from there on).
TEST(GpusByNode, GroupsInOrderOfFirstAppearance) {
  ClusterSpec c = *cluster_preset("dgx-h100");
  c.nodes = 4;
  const Platform p = Platform::without_simgrid(c);
  using Groups = std::vector<std::vector<int>>;
  EXPECT_EQ(gpus_by_node({0, 1, 8, 9, 16}, p), (Groups{{0, 1}, {8, 9}, {16}}));
  EXPECT_EQ(gpus_by_node({0, 8, 1, 9, 16, 2}, p), (Groups{{0, 1, 2}, {8, 9}, {16}}));
  EXPECT_EQ(gpus_by_node({16, 8, 0, 17, 9, 1}, p), (Groups{{16, 17}, {8, 9}, {0, 1}}));
  EXPECT_EQ(gpus_by_node({8, 16, 0, 24, 9, 1, 25}, p), (Groups{{8, 9}, {16}, {0, 1}, {24, 25}}));
  EXPECT_EQ(gpus_by_node({}, p), Groups{});
}

TEST(AlgorithmSelection, RejectsANegativeSize) {
  const auto r = on_dgx_platform([](const Platform& p) {
    return std::vector<double>{outcome_of([&] { choose_algorithm(call_of(CollectiveOp::all_reduce, {0, 1}, -1), p); })};
  });
  EXPECT_EQ(r[0], k_input_error);
}

TEST(AlgorithmSelection, RejectsHierarchicalOnUnevenNodes) {
  const auto r = on_dgx_platform([](const Platform& p) {
    return std::vector<double>{outcome_of([&] {
      plan_collective(call_of(CollectiveOp::all_reduce, {0, 1, 2, 8}, 1024, CollectiveAlgo::hierarchical), p);
    })};
  });
  EXPECT_EQ(r[0], k_input_error);
}

TEST(Simulation, OnlyOneEnginePerProcess) {
  const auto r = test::run_isolated([] {
    { Simulation first_one; }
    return std::vector<double>{outcome_of([] { Simulation second; })};
  });
  EXPECT_EQ(r[0], k_other_error);
}

TEST(Platform, RejectsZeroNicBandwidthOnSeveralNodes) {
  const auto r = test::run_isolated([] {
    ClusterSpec c = test::small_cluster(2, 1, Fabric::fat_tree);
    c.nic_bandwidth_Bps = 0;
    Simulation sim;
    return std::vector<double>{outcome_of([&] { Platform p(c); })};
  });
  EXPECT_EQ(r[0], k_input_error);
}

}  // namespace
}  // namespace trainsim::engine
