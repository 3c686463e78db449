// The runner spreads a large phase's parallel tasks over helper actors (sim/engine/
// plan_runner.cpp: run_phase; SimGrid 3.32 removes an ended activity from its actor's list
// by a walk over the list). The tasks start in the same order at the same instant, so the
// simulation must not change: every plan's time is compared with one actor per phase and
// with one actor per task; bit for bit alone, to 1e-12 beside other plans on shared links.

#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <vector>

#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/collective.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/engine/test_clusters.hpp"

namespace trainsim::engine {
namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;
constexpr size_t k_one_actor = std::numeric_limits<size_t>::max();

CollectiveCall all_reduce(int first_gpu, int gpus, CollectiveAlgo algo, double bytes) {
  CollectiveCall c;
  c.op = CollectiveOp::all_reduce;
  c.algo = algo;
  c.bytes = bytes;
  for (int g = first_gpu; g < first_gpu + gpus; ++g) c.gpus.push_back(g);
  return c;
}

// The durations of `calls`, all started at t = 0 on one platform, with at most
// `tasks_per_actor` tasks per actor.
std::vector<double> durations(const ClusterSpec& cluster, const std::vector<CollectiveCall>& calls,
                              PlanSurroundings surroundings, size_t tasks_per_actor) {
  return test::run_isolated([&] {
    Simulation sim;
    const Platform platform(cluster);
    std::vector<CommActivity> started;
    for (const CollectiveCall& call : calls)
      started.push_back(start_plan(platform, plan_collective(call, platform), "plan", surroundings,
                                   PlanRunOptions{tasks_per_actor}));
    sim.run();
    std::vector<double> out;
    for (const CommActivity& a : started) out.push_back(a.duration_s());
    return out;
  });
}

// `tolerance`: relative; 0 for bit-identical.
void expect_same_whatever_the_actors(const ClusterSpec& cluster, const std::vector<CollectiveCall>& calls,
                                     PlanSurroundings surroundings, double tolerance) {
  const std::vector<double> one_actor = durations(cluster, calls, surroundings, k_one_actor);
  ASSERT_EQ(one_actor.size(), calls.size());
  for (const double d : one_actor) EXPECT_GT(d, 0);
  for (const size_t per_actor : {size_t{1}, size_t{3}, size_t{64}}) {
    const std::vector<double> got = durations(cluster, calls, surroundings, per_actor);
    ASSERT_EQ(got.size(), one_actor.size());
    for (size_t i = 0; i < got.size(); ++i) {
      if (tolerance == 0)
        EXPECT_EQ(got[i], one_actor[i]) << "plan " << i << ", " << per_actor << " tasks per actor";
      else
        EXPECT_NEAR(got[i], one_actor[i], tolerance * one_actor[i]) << "plan " << i << ", " << per_actor
                                                                    << " tasks per actor";
    }
  }
}

TEST(PlanRunner, ALargeCollectiveAloneIsTheSameWhateverTheActors) {
  // 2,048 GPUs: the ring's phase packs into over 64 tasks of 128 hosts.
  const ClusterSpec c = test::preset_cluster("dgx-h100", 256, Fabric::rail_optimized);
  for (const CollectiveAlgo algo :
       {CollectiveAlgo::ring, CollectiveAlgo::double_binary_tree, CollectiveAlgo::hierarchical})
    expect_same_whatever_the_actors(c, {all_reduce(0, c.total_gpus(), algo, k_gib)}, PlanSurroundings::alone, 0);
}

TEST(PlanRunner, PlansSharingLinksAreTheSameWhateverTheActors) {
  // Three all-reduces over overlapping node ranges of an oversubscribed fat tree contend for
  // NIC ports and uplinks, every leg simulated. Here the split can move the last bits (2 ulps
  // measured with 3 tasks per actor: SimGrid ends simultaneous tasks of different actors in
  // another order), so the default split (PlanRunOptions) leaves phases of up to 1,024 tasks,
  // the step's among them, on one actor as before.
  ClusterSpec c = test::small_cluster(96, 8, Fabric::fat_tree);
  c.oversubscription = 2.0;
  expect_same_whatever_the_actors(c,
                                  {all_reduce(0, 512, CollectiveAlgo::ring, k_gib),
                                   all_reduce(256, 512, CollectiveAlgo::double_binary_tree, k_gib / 4),
                                   all_reduce(128, 640, CollectiveAlgo::ring, 64.0 * 1024 * 1024)},
                                  PlanSurroundings::shared, 1e-12);
}

}  // namespace
}  // namespace trainsim::engine
