// The run-level simulation's second part: the storage model, async checkpoints, failure
// causes, planned maintenance, the spare pool and the elastic policy, and the accounting that
// ties them together.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "sim/run/checkpoint_storage.hpp"
#include "sim/run/failure_causes.hpp"
#include "sim/run/job_size.hpp"
#include "tests/run/run_test_support.hpp"

namespace trainsim {
namespace {

using test::run;
using test::run_scenario;

// Where the wall time goes: useful training, lost work, checkpoint stalls, restarts,
// waiting and the step under way at the end add up to the run's length.
void expect_time_accounted(const RunResult& r, double step_s) {
  const double parts = r.useful_time_s + r.lost_work_s + r.checkpoint_overhead_s + r.restart_overhead_s +
                       r.waiting_for_nodes_s + r.unfinished_step_s;
  EXPECT_NEAR(parts, r.wall_time_s, 1e-9 * r.wall_time_s);
  EXPECT_GE(r.unfinished_step_s, 0);
  EXPECT_LT(r.unfinished_step_s, step_s);
}

TEST(RunAccounting, PhasesAddUpToTheWallTime) {
  Scenario s = run_scenario(64, 120, 100 * 3600.0, 20, "auto", 1);
  expect_time_accounted(run(s, 7.0), 7.0 * 64);  // at dp 1 a step is 64 times longer
  s.failures.spare_nodes = 0;
  s.elastic.policy = ElasticPolicy::shrink;
  expect_time_accounted(run(s, 7.0), 7.0 * 64);
  s.elastic.policy = ElasticPolicy::wait;
  s.checkpoint.mode = CheckpointMode::async;
  s.failures.maintenance_interval_s = 86400;
  expect_time_accounted(run(s, 7.0), 7.0 * 64);
}

TEST(CheckpointStorage, TheFileSystemOrTheNodeLinksLimitTheWrite) {
  Scenario s = run_scenario(16, 60, 0, 1, "auto", 1);
  const std::vector<double> per_node = checkpoint_bytes_per_node(s);
  double total = 0, largest = 0;
  for (double b : per_node) total += b, largest = std::max(largest, b);
  EXPECT_NEAR(total, checkpoint_size(s.model, s.training, s.parallel).total_bytes, 1.0);
  // File system bound: 16 nodes at 25 GB/s against 10 GB/s aggregate.
  s.checkpoint.write_bandwidth_Bps = 10e9;
  s.checkpoint.read_bandwidth_Bps = 20e9;
  const std::string a = forked_call([&] {
    const CheckpointCosts c = simulate_checkpoint_storage(s);
    return nlohmann::json{c.write_s, c.read_s}.dump();
  });
  const auto fs = nlohmann::json::parse(a);
  EXPECT_NEAR(fs[0].get<double>(), total / 10e9, 1e-3 * total / 10e9);
  EXPECT_NEAR(fs[1].get<double>(), total / 20e9, 1e-3 * total / 20e9);
  // Node bound: the node with the most bytes, at 1 GB/s, against a 1 TB/s file system.
  s.checkpoint.write_bandwidth_Bps = 1e12;
  s.checkpoint.node_bandwidth_Bps = 1e9;
  const auto node =
      nlohmann::json::parse(forked_call([&] { return nlohmann::json{simulate_checkpoint_storage(s).write_s}.dump(); }));
  EXPECT_NEAR(node[0].get<double>(), largest / 1e9, 1e-3 * largest / 1e9);
  // Between the two, max-min sharing: no faster than either bound.
  s.checkpoint.write_bandwidth_Bps = 16 * 1e9 / 2;
  const auto both =
      nlohmann::json::parse(forked_call([&] { return nlohmann::json{simulate_checkpoint_storage(s).write_s}.dump(); }));
  EXPECT_GE(both[0].get<double>(), std::max(largest / 1e9, total / (8e9)) * (1 - 1e-6));
}

TEST(AsyncCheckpoints, TrainingStallsOnlyForTheSnapshot) {
  Scenario s = run_scenario(16, 600, 0, 2, "3600s", 1);  // 10 min writes every hour, no failures
  const RunResult sync = run(s);
  s.checkpoint.mode = CheckpointMode::async;
  const RunResult async = run(s);
  EXPECT_GT(async.effective_training_time_ratio, sync.effective_training_time_ratio);
  // unit_costs: snapshots of 6 s; each checkpoint stalls training for one.
  EXPECT_NEAR(async.checkpoint_overhead_s, async.checkpoints_written * 6.0, 6.0 + 1e-6);
  EXPECT_NEAR(sync.checkpoint_overhead_s, sync.checkpoints_written * 600.0, 600.0 + 1e-6);
  for (const CheckpointRecord& c : async.checkpoints) EXPECT_TRUE(c.async);
}

TEST(AsyncCheckpoints, TheAutomaticIntervalNeverOutrunsTheWrite) {
  // Daly's interval for a 6.05 s snapshot is shorter than the 605 s write, so `auto` takes
  // the write's length; in whole steps of 7 s (86.4 of them) it must round up, or every
  // checkpoint would wait for the last one's write.
  Scenario s = run_scenario(16, 605, 2 * 86400.0, 2, "auto", 1);  // an MTTI of 3 h
  s.checkpoint.mode = CheckpointMode::async;
  const RunResult r = run(s, 7.0);
  ASSERT_GT(r.checkpoints_written, 10);
  EXPECT_NEAR(r.checkpoint_overhead_s, (r.checkpoints_written + r.checkpoints_interrupted) * 6.05, 6.05 + 1e-6);
}

TEST(AsyncCheckpoints, AFailureDuringTheBackgroundWriteKeepsThePreviousOne) {
  Scenario s = run_scenario(16, 1800, 32 * 3600.0, 30, "1800s", 3);
  s.checkpoint.mode = CheckpointMode::async;
  const RunResult r = run(s);
  ASSERT_GT(r.checkpoints_interrupted, 0);
  long long committed = 0;
  for (const CheckpointRecord& c : r.checkpoints)
    if (c.committed) {
      EXPECT_GE(c.steps, committed);  // commits never go back
      committed = c.steps;
    }
}

TEST(FailureCauses, Llama3SharesAreDrawn) {
  Scenario s = run_scenario(256, 60, 50 * 3600.0, 60, "auto", 5);
  s.failures.causes = FailureCauses::llama3;
  const RunResult r = run(s);
  ASSERT_GT(r.failures, 2000);
  std::map<std::string, int> seen;
  for (const InterruptionRecord& i : r.interruptions) ++seen[i.cause];
  int total = 0;
  for (const FailureCause& c : failure_causes(FailureCauses::llama3)) total += c.count;
  EXPECT_EQ(total, 419);  // Llama 3's unexpected interruptions
  for (const FailureCause& c : failure_causes(FailureCauses::llama3)) {
    if (c.count < 30) continue;
    const double share = static_cast<double>(seen[c.component]) / r.failures;
    EXPECT_NEAR(share, static_cast<double>(c.count) / total, 0.03) << c.component;
  }
}

TEST(PlannedMaintenance, CheckpointsFirstAndLosesAtMostAStep) {
  Scenario s = run_scenario(16, 60, 0, 10, "3600s", 1);
  s.failures.maintenance_interval_s = 86400 + 1234.5;
  s.failures.maintenance_downtime_s = 1800;
  const RunResult r = run(s, 5.0);
  EXPECT_EQ(r.planned_interruptions, 9);
  EXPECT_EQ(r.failures, 0);
  EXPECT_LT(r.lost_work_s, 9 * 5.0);
  for (const InterruptionRecord& i : r.interruptions) {
    EXPECT_TRUE(i.planned);
    EXPECT_GE(i.downtime_s, 1800 + s.failures.restart_s);
  }
  // Every stop is preceded by a committed checkpoint of the steps done.
  for (const InterruptionRecord& i : r.interruptions) {
    const auto after = std::find_if(r.checkpoints.begin(), r.checkpoints.end(),
                                    [&](const CheckpointRecord& c) { return c.start_s >= i.time_s; });
    ASSERT_NE(after, r.checkpoints.end());
    EXPECT_TRUE(after->committed);
    EXPECT_NEAR(after->start_s, i.time_s, 1e-6);
  }
}

TEST(SparePool, WithoutSparesTheJobWaitsForRepairs) {
  Scenario s = run_scenario(64, 60, 100 * 3600.0, 20, "auto", 2);
  const RunResult unlimited = run(s);
  EXPECT_EQ(unlimited.waiting_for_nodes_s, 0);
  s.failures.spare_nodes = 0;
  s.failures.repair_s = 86400;
  const RunResult none = run(s);
  EXPECT_GT(none.waiting_for_nodes_s, 0);
  EXPECT_LT(none.effective_training_time_ratio, unlimited.effective_training_time_ratio);
  s.failures.spare_nodes = 4;
  const RunResult some = run(s);
  EXPECT_LT(some.waiting_for_nodes_s, none.waiting_for_nodes_s);
}

TEST(Elastic, ShrinkingGoesOnWithFewerReplicasAndGrowsBack) {
  Scenario s = run_scenario(64, 60, 100 * 3600.0, 20, "auto", 2);
  s.failures.spare_nodes = 0;
  s.failures.repair_s = 86400;
  const RunResult wait = run(s);
  s.elastic.policy = ElasticPolicy::shrink;
  const RunResult shrink = run(s);
  EXPECT_EQ(shrink.waiting_for_nodes_s, 0);
  EXPECT_GT(shrink.resizes, 1);
  EXPECT_LT(shrink.min_dp, s.parallel.dp);
  EXPECT_GT(shrink.effective_training_time_ratio, wait.effective_training_time_ratio);
  // A restart after a failure takes every node available; growing back otherwise costs a
  // restart of its own: always does it, never does not.
  s.elastic.grow = GrowPolicy::always;
  const RunResult always = run(s);
  EXPECT_GT(always.restarts, always.failures);
  s.elastic.grow = GrowPolicy::never;
  const RunResult never = run(s);
  EXPECT_EQ(never.restarts, never.failures);
  s.elastic.grow = GrowPolicy::automatic;
  // The global sampler reshards: the sample sequence is still the failure-free one.
  EXPECT_EQ(shrink.samples_duplicated, 0);
  EXPECT_EQ(shrink.samples_skipped, 0);
  // A per-rank sampler re-reads samples when the job shrinks (and skips some when it grows).
  s.checkpoint.sampler = DataSampler::per_rank;
  const RunResult per_rank = run(s);
  EXPECT_GT(per_rank.samples_duplicated + per_rank.samples_skipped, 0);
}

// auto grows when the throughput gained until the next expected interruption pays for the
// restart: with 512 replicas, a node back (8 of them, 1.6 % for the 1.6 h MTTI) does not pay
// for a 10 min restart, several nodes back at once may; with 4, a replica more (25 %) does.
TEST(Elastic, AutoGrowsWhenItPays) {
  Scenario many = run_scenario(64, 60, 100 * 3600.0, 20, "auto", 2);  // dp 512, MTTI 1.6 h
  many.failures.spare_nodes = 0;
  many.failures.repair_s = 86400;
  many.elastic.policy = ElasticPolicy::shrink;
  const RunResult automatic = run(many);
  many.elastic.grow = GrowPolicy::always;
  const RunResult always = run(many);
  ASSERT_GT(automatic.resizes, 0);
  EXPECT_LT(automatic.restarts - automatic.failures, (always.restarts - always.failures) / 2);
  Scenario few = load_scenario(std::vector<IniEntry>{{"model.preset", "llama3-8b", "t"},
                                                     {"parallel.tp", "8", "t"},
                                                     {"parallel.pp", "2", "t"},
                                                     {"cluster.nodes", "8", "t"},
                                                     {"run.duration", "60d", "t"},
                                                     {"failures.mtbf", "20d", "t"},
                                                     {"failures.causes", "hardware", "t"},
                                                     {"failures.spare_nodes", "0", "t"},
                                                     {"failures.repair", "1d", "t"},
                                                     {"elastic.policy", "shrink", "t"}},
                               "t");
  ASSERT_EQ(few.parallel.dp, 4);
  const RunResult g = run(few);
  EXPECT_GT(g.restarts, g.failures);
}

TEST(JobSize, KeepingTheGlobalBatchPicksTheNearestOneTheReplicasCanRun) {
  Scenario s = run_scenario(16, 60, 0, 1, "auto", 1);  // llama3-8b default layout on 16 nodes
  s.training.grad_accum = 8;
  const int dp = s.parallel.dp;
  const int replica_nodes = nodes_for_dp(s, 1);
  EXPECT_EQ(largest_dp_on(s, s.cluster.nodes), dp);
  const int smaller = largest_dp_on(s, s.cluster.nodes - replica_nodes);
  ASSERT_LT(smaller, dp);
  const Scenario kept = scenario_at_dp(s, smaller);
  EXPECT_EQ(kept.parallel.dp, smaller);
  EXPECT_EQ(kept.cluster.nodes, nodes_for_dp(s, smaller));
  const long long target = static_cast<long long>(s.training.grad_accum) * dp;
  const long long kept_batch = static_cast<long long>(kept.training.grad_accum) * smaller;
  for (const int other : {kept.training.grad_accum - 1, kept.training.grad_accum + 1}) {
    if (other >= 1) {
      EXPECT_LE(std::llabs(kept_batch - target), std::llabs(static_cast<long long>(other) * smaller - target));
    }
  }
  EXPECT_GT(kept.training.grad_accum, s.training.grad_accum);  // fewer replicas, more micro-batches each
  s.elastic.global_batch = GlobalBatchPolicy::scale;
  EXPECT_EQ(scenario_at_dp(s, smaller).training.grad_accum, s.training.grad_accum);
  s.elastic.min_dp = dp;
  EXPECT_EQ(largest_dp_on(s, s.cluster.nodes - 1), 0);  // below min_dp: wait instead
}

TEST(JobSize, KeepingTheBatchOfAnInterleavedJobStaysNearIt) {
  // 128 replicas, pp 16 interleaved, 16 micro-batches each: one replica fewer keeps 16 (a
  // batch of 2032 for 2048), where rounding up to the next multiple of pp would run 32 (4064).
  Scenario s = run_scenario(16, 60, 0, 1, "auto", 1);
  s.parallel.pp = 16;
  s.parallel.schedule = Schedule::interleaved;
  s.parallel.virtual_stages = 2;
  s.parallel.dp = 128;
  s.training.grad_accum = 16;
  EXPECT_EQ(scenario_at_dp(s, 127).training.grad_accum, 16);
  EXPECT_EQ(scenario_at_dp(s, 64).training.grad_accum, 32);   // exact
  EXPECT_EQ(scenario_at_dp(s, 100).training.grad_accum, 16);  // 2048 / 100 = 20.5: 16 (1600) is nearer than 32 (3200)
  EXPECT_EQ(scenario_at_dp(s, 80).training.grad_accum, 32);   // 25.6: 32 (2560) is nearer than 16 (1280)
}

TEST(FailureUnits, RatesAndPerGpuProcesses) {
  // A rate per day is an MTBF.
  Scenario s = load_scenario(std::vector<IniEntry>{{"model.preset", "llama3-8b", "t"},
                                                   {"cluster.nodes", "16", "t"},
                                                   {"run.duration", "30d", "t"},
                                                   {"failures.mtbf", "0.25/day", "t"},
                                                   {"failures.causes", "hardware", "t"}},
                             "t");
  EXPECT_DOUBLE_EQ(s.failures.mtbf_s, 4 * 86400.0);
  const RunResult per_node = test::run(s);
  EXPECT_DOUBLE_EQ(per_node.mtti_s, 4 * 86400.0 / 16);
  // Each GPU failing every 32 days: the same rate per node as every 4 days per node.
  s.failures.unit = FailureUnit::gpu;
  s.failures.mtbf_s = 32 * 86400.0;
  const RunResult per_gpu = test::run(s);
  EXPECT_DOUBLE_EQ(per_gpu.mtti_s, per_node.mtti_s);
  EXPECT_NEAR(per_gpu.failures, per_node.failures, 4 * std::sqrt(per_node.failures));  // Poisson spread
  EXPECT_NE(per_gpu.lost_work_s, per_node.lost_work_s);                                // drawn from other processes
}

}  // namespace
}  // namespace trainsim
