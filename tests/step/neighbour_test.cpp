// A neighbour job on the same fabric (variations.neighbour): where it sits, what it costs the
// job and itself, and the reduced simulation against --full with it.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/step/replica_classes.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"
#include "topologies/neighbour_placement.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/slow_parts.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

TEST(NeighbourPlacement, AfterOrInterleavedNodeByNode) {
  const NeighbourNodes after = place_neighbour(2, 3, NeighbourPlacement::after);
  EXPECT_EQ(after.job, (std::vector<int>{0, 1}));
  EXPECT_EQ(after.neighbour, (std::vector<int>{2, 3, 4}));
  const NeighbourNodes mixed = place_neighbour(3, 2, NeighbourPlacement::interleaved);
  EXPECT_EQ(mixed.job, (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(mixed.neighbour, (std::vector<int>{1, 3}));
}

TEST(NeighbourPlacement, NvlinkDomainsOfSeveralNodesStayWhole) {
  const NeighbourNodes racks = place_neighbour(4, 6, NeighbourPlacement::interleaved, 2);
  EXPECT_EQ(racks.job, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(racks.neighbour, (std::vector<int>{2, 3, 6, 7, 8, 9}));
}

TEST(NeighbourPlacement, RankMappingPlacesTheJobsNodes) {
  const Scenario s = scenario({{"model.preset", "llama3-8b"}, {"parallel.tp", "8"}, {"cluster.nodes", "2"}});
  const RankMapping placed(s.parallel, s.cluster, {1, 3});
  EXPECT_EQ(placed.gpu_of(0), 8);
  EXPECT_EQ(placed.gpu_of(7), 15);
  EXPECT_EQ(placed.gpu_of(9), 25);
  EXPECT_EQ(placed.node_of(9), 1);  // the job's own node index
  EXPECT_EQ(RankMapping(s.parallel, s.cluster).gpu_of(9), 9);
}

// A scenario file of `text` in the temp folder, for variations.neighbour (one per process:
// tests run in parallel).
std::string neighbour_file(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("trainsim-neighbour-" + std::to_string(::getpid()) + "-" + name + ".ini");
  std::ofstream(path) << text;
  return path.string();
}

// Communication-heavy: Llama 3 70B's gradients, all-reduced over 8 nodes after a short pass.
const char* const k_heavy =
    "[model]\npreset = llama3-70b\nlayers = 8\nseq_len = 1024\n[training]\ngrad_accum = 1\n[parallel]\ntp = 8\n"
    "[cluster]\npreset = dgx-h100\nnodes = 8\nfabric = fat-tree\noversubscription = 4\n";

// Llama 3 8B at TP 8 over 8 nodes of a 4:1 oversubscribed fat tree (leaves of 4 nodes).
Settings job(const std::string& placement) {
  return {{"model.preset", "llama3-8b"},
          {"model.seq_len", "4096"},
          {"training.grad_accum", "4"},
          {"parallel.tp", "8"},
          {"parallel.zero", "1"},
          {"cluster.nodes", "8"},
          {"cluster.fabric", "fat-tree"},
          {"cluster.oversubscription", "4"},
          {"variations.neighbour", neighbour_file("heavy", k_heavy)},
          {"variations.neighbour_placement", placement}};
}

struct Both {
  double step_s, neighbour_step_s, neighbour_steps, neighbour_gpus;
};

Both simulate(const Scenario& s, bool reduce = true) {
  const std::vector<double> v = testing::simulated_fields(s, reduce, [](const StepResult& r) {
    return r.neighbour
               ? std::vector<double>{r.step_time_s, r.neighbour->step_time_s, static_cast<double>(r.neighbour->steps),
                                     static_cast<double>(r.neighbour->gpus)}
               : std::vector<double>{r.step_time_s, 0, 0, 0};
  });
  return {v[0], v[1], v[2], v[3]};
}

TEST(NeighbourStep, SharingOversubscribedLeavesCostsBothJobsAndDisjointLeavesNothing) {
  Scenario alone = scenario(job("after"));
  const Scenario neighbour_alone = *alone.neighbour;
  alone.variations.neighbour.clear();
  alone.neighbour = nullptr;
  const double job_alone = simulate(alone).step_s;
  const double neighbour_s = simulate(neighbour_alone).step_s;

  // After the job's nodes: the jobs' leaves are their own (8 nodes = 2 leaves each).
  const Both after = simulate(scenario(job("after")));
  EXPECT_NEAR(after.step_s / job_alone, 1.0, 1e-9);
  EXPECT_NEAR(after.neighbour_step_s / neighbour_s, 1.0, 1e-9);
  EXPECT_EQ(after.neighbour_gpus, 64);
  EXPECT_GE(after.neighbour_steps, 1);

  // Interleaved: each leaf holds two nodes of each, and the uplinks carry both jobs' rings.
  const Both mixed = simulate(scenario(job("interleaved")));
  EXPECT_GT(mixed.step_s, job_alone * 1.1);
  EXPECT_GT(mixed.neighbour_step_s, neighbour_s * 1.01);
  // Replica 0 of each job stands for its others exactly: every gradient leg runs.
  const Both full = simulate(scenario(job("interleaved")), false);
  EXPECT_NEAR(mixed.step_s / full.step_s, 1.0, 1e-9);
  EXPECT_NEAR(mixed.neighbour_step_s / full.neighbour_step_s, 1.0, 1e-9);
  EXPECT_EQ(mixed.neighbour_steps, full.neighbour_steps);
}

// The job's own slow GPU and slow NIC beside a neighbour: on leaves of their own the job steps
// as alone with them; interleaved, the reduced simulation equals --full.
TEST(NeighbourStep, TheJobsSlowGpusAndNicsBesideANeighbour) {
  const Settings slow{{"variations.slow_gpu_ids", "9"},
                      {"variations.slow_gpu_speed", "0.8"},
                      {"variations.slow_nic_ids", "21"},
                      {"variations.slow_nic_speed", "0.5"}};
  Scenario alone = scenario(testing::merged(job("after"), slow));
  alone.variations.neighbour.clear();
  alone.neighbour = nullptr;
  const Both after = simulate(scenario(testing::merged(job("after"), slow)));
  EXPECT_NEAR(after.step_s / simulate(alone).step_s, 1.0, 1e-9);
  EXPECT_GT(after.step_s, simulate(scenario(job("after"))).step_s);  // they cost it
  const Both mixed = simulate(scenario(testing::merged(job("interleaved"), slow)));
  const Both full = simulate(scenario(testing::merged(job("interleaved"), slow)), false);
  EXPECT_NEAR(mixed.step_s / full.step_s, 1.0, 1e-9);
  EXPECT_NEAR(mixed.neighbour_step_s / full.neighbour_step_s, 1.0, 1e-9);
  // The slow NIC is the job's node 1's, platform node 2 interleaved (platform node 1 is the
  // neighbour's): it slows the job.
  const Settings nic{{"variations.slow_nic_ids", "13"}, {"variations.slow_nic_speed", "0.25"}};
  EXPECT_GT(simulate(scenario(testing::merged(job("interleaved"), nic))).step_s,
            simulate(scenario(job("interleaved"))).step_s * 1.001);
}

// Uplinks and spines down name the switches of the fabric both jobs' nodes make: 4 leaves of
// 4 nodes, 8 uplinks each (ids leaf x 8 + index), 8 spines. Placed after each other the job has
// leaves 0 and 1 and the neighbour leaves 2 and 3 (which the job's cluster alone lacks).
TEST(NeighbourStep, UplinksAndSpinesDownOnTheFabricBothJobsShare) {
  const Both after = simulate(scenario(job("after")));
  const Both mixed = simulate(scenario(job("interleaved")));
  const auto down = [](const std::string& placement, const std::string& key, const std::string& ids) {
    return scenario(testing::merged(job(placement), {{key, ids}}));
  };
  // Seven of leaf 3's eight uplinks down: the neighbour's ring crosses them, the job's does not.
  const Both theirs = simulate(down("after", "variations.down_uplink_ids", "24,25,26,27,28,29,30"));
  EXPECT_NEAR(theirs.step_s / after.step_s, 1.0, 1e-9);
  EXPECT_GT(theirs.neighbour_step_s, after.neighbour_step_s * 2);
  // Leaf 0's: the job's.
  const Both ours = simulate(down("after", "variations.down_uplink_ids", "0,1,2,3,4,5,6"));
  EXPECT_GT(ours.step_s, after.step_s * 2);
  EXPECT_NEAR(ours.neighbour_step_s / after.neighbour_step_s, 1.0, 1e-9);
  // Interleaved, every leaf holds nodes of both: uplinks of leaf 0, or one of leaf 1 (whose job
  // nodes 2 and 3, platform nodes 4 and 6, have their replicas set apart), and a spine down (a
  // cable of every leaf) cost both, and the reduced simulation equals --full.
  for (const auto& [key, ids] :
       std::vector<std::pair<std::string, std::string>>{{"variations.down_uplink_ids", "0,1,2,3,4,5,6"},
                                                        {"variations.down_uplink_ids", "13"},
                                                        {"variations.down_spine_ids", "3"}}) {
    const Scenario s = down("interleaved", key, ids);
    const Both reduced = simulate(s);
    const Both full = simulate(s, false);
    EXPECT_GT(reduced.step_s, mixed.step_s * 1.01) << key << " = " << ids;
    EXPECT_GT(reduced.neighbour_step_s, mixed.neighbour_step_s * 1.01) << key << " = " << ids;
    EXPECT_NEAR(reduced.step_s / full.step_s, 1.0, 1e-9) << key << " = " << ids;
    EXPECT_NEAR(reduced.neighbour_step_s / full.neighbour_step_s, 1.0, 1e-9) << key << " = " << ids;
    EXPECT_EQ(reduced.neighbour_steps, full.neighbour_steps) << key << " = " << ids;
  }
}

TEST(NeighbourStep, AnUplinkDownSetsApartTheReplicasOfTheJobsNodesUnderIt) {
  // Interleaved, the job's node j is platform node 2j: leaf 1 (platform nodes 4 to 7) holds
  // the job's nodes 2 and 3, where replicas 2 and 3 run (TP 8 fills a node, no pipeline).
  Scenario s = scenario(testing::merged(job("interleaved"), {{"variations.down_uplink_ids", "13"}}));
  s.cluster = with_slow_parts(s.cluster, s.variations, s.run.seed, s.fabric());
  const NeighbourNodes nodes = place_neighbour(8, 8, NeighbourPlacement::interleaved);
  const RankMapping mapping(s.parallel, s.cluster, nodes.job);
  const std::vector<ReplicaClass> classes = replica_classes(s, mapping, s.fabric(), true);
  std::vector<std::vector<int>> members;
  for (const ReplicaClass& c : classes) members.push_back(c.members);
  EXPECT_EQ(members, (std::vector<std::vector<int>>{{0, 1, 4, 5, 6, 7}, {2}, {3}}));
}

TEST(NeighbourStep, TheNeighbourStepsUntilTheJobIsDone) {
  // A short neighbour beside a longer job plays several steps, each counted.
  Settings s = job("after");
  s.push_back(
      {"variations.neighbour", neighbour_file("short",
                                              "[model]\npreset = llama3-8b\nlayers = 2\nseq_len = 1024\n[training]\n"
                                              "grad_accum = 1\n[parallel]\ntp = 8\n[cluster]\npreset = dgx-h100\n"
                                              "nodes = 2\nfabric = fat-tree\noversubscription = 4\n")});
  const Both b = simulate(scenario(s));
  EXPECT_GE(b.neighbour_steps, 3);
  EXPECT_LT(b.neighbour_step_s * (b.neighbour_steps - 1), b.step_s);  // begun before the job ended
  EXPECT_EQ(b.neighbour_gpus, 16);
}

// Loading `settings` fails naming `key` with `rule` in its message.
void expect_refused(const Settings& settings, const std::string& key, const std::string& rule) {
  try {
    scenario(settings);
    ADD_FAILURE() << "accepted; expected " << key << ": " << rule;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(rule), std::string::npos) << e.what();
  }
}

TEST(NeighbourStep, RacksOfAnNvl72ClusterAreEachOneJobs) {
  // Two GB200 NVL72 racks, one job each: interleaved, the job's rack is rack 0 and the
  // neighbour's rack 1; each job's traffic stays in its rack's NVLink domain.
  const char* const rack =
      "[model]\npreset = llama3-70b\nlayers = 8\nseq_len = 1024\n[training]\ngrad_accum = 1\n"
      "[parallel]\ntp = 8\n[cluster]\npreset = gb200-nvl72\nnodes = 18\n";
  const Settings job{{"model.preset", "llama3-8b"},
                     {"model.seq_len", "4096"},
                     {"training.grad_accum", "2"},
                     {"parallel.tp", "4"},
                     {"cluster.preset", "gb200-nvl72"},
                     {"cluster.nodes", "18"},
                     {"variations.neighbour", neighbour_file("rack", rack)},
                     {"variations.neighbour_placement", "interleaved"}};
  Scenario alone = scenario(job);
  alone.variations.neighbour.clear();
  alone.neighbour = nullptr;
  const Both beside = simulate(scenario(job));
  EXPECT_NEAR(beside.step_s / simulate(alone).step_s, 1.0, 1e-9);
  EXPECT_EQ(beside.neighbour_gpus, 72);
  // --full: the same gap as the job alone's (its TP collectives timed once beside the
  // overlapped gradient reductions, step_simulation.hpp).
  const Both full = simulate(scenario(job), false);
  EXPECT_NEAR(beside.step_s / full.step_s, simulate(alone).step_s / simulate(alone, false).step_s, 1e-9);
  Settings part = job;
  part.push_back({"cluster.nodes", "9"});
  expect_refused(part, "cluster.nodes", "a multiple of 18 nodes");
}

TEST(NeighbourStep, WhatCannotShareTheFabricIsRefused) {
  const auto with = [](Settings s, const std::string& key, const std::string& value) {
    s.push_back({key, value});
    return s;
  };
  expect_refused(with(job("after"), "variations.neighbour", "/nonexistent/other.ini"), "variations.neighbour",
                 "must name a scenario file");
  expect_refused(with(job("after"), "variations.neighbour", std::filesystem::temp_directory_path().string()),
                 "variations.neighbour", "must name a scenario file");
  const std::string b200 = neighbour_file("b200", std::string(k_heavy) + "gpu = b200\n");
  expect_refused(with(job("after"), "variations.neighbour", b200), "cluster.gpu", "must be the job's h100-sxm");
  const std::string fp8 = neighbour_file("fp8", std::string(k_heavy) + "[training]\nprecision = fp8\n");
  expect_refused(with(job("after"), "variations.neighbour", fp8), "training.precision", "compute model");
  const std::string nested = neighbour_file(
      "nested", std::string(k_heavy) + "[variations]\nneighbour = " + neighbour_file("heavy", k_heavy) + "\n");
  expect_refused(with(job("after"), "variations.neighbour", nested), "variations.neighbour",
                 "cannot have a neighbour of its own");
  const std::string slow = neighbour_file("slow", std::string(k_heavy) + "[variations]\nslow_gpus = 1\n");
  expect_refused(with(job("after"), "variations.neighbour", slow), "variations", "must be empty");
  // Ids of the shared fabric's switches: 32 uplinks and 8 spines, where the job alone has 16 and 8.
  expect_refused(with(job("after"), "variations.down_uplink_ids", "32"), "variations.down_uplink_ids",
                 "ids run from 0 to 31 on this cluster (leaf x 8 uplinks per leaf + index; the fabric of the job's "
                 "nodes and its neighbour's)");
  expect_refused(with(job("after"), "variations.down_spine_ids", "8"), "variations.down_spine_ids",
                 "ids run from 0 to 7");
  expect_refused(with(job("after"), "run.train_steps", "100"), "variations.neighbour", "not a run's");
}

}  // namespace
}  // namespace trainsim
