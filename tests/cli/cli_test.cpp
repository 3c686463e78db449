// The CLI as users run it: help, version, the memory table and its JSON form.

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "support/run_trainsim.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;
using testing::source_path;

TEST(Cli, HelpAndVersion) {
  const auto help = run_trainsim({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("memory"), std::string::npos);
  const auto version = run_trainsim({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("SimGrid 3.32"), std::string::npos) << version.out;
  const auto memory_help = run_trainsim({"memory", "--help"});
  EXPECT_EQ(memory_help.exit_code, 0);
  EXPECT_NE(memory_help.out.find("--set"), std::string::npos);
}

TEST(Cli, UnknownCommandSuggestsTheNearest) {
  const auto r = run_trainsim({"memroy", "x.ini"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'memory'"), std::string::npos) << r.err;
}

TEST(Cli, MemoryTableOnTheDefaultScenario) {
  const auto r = run_trainsim({"memory", source_path("scenarios/default.ini")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* word : {"parameters", "global_batch_samples", "tokens_per_step", "capacity", "weights", "gradients",
                           "optimizer", "activations", "comm", "framework", "fragment", "total", "headroom", "fits"})
    EXPECT_NE(r.out.find(word), std::string::npos) << word;
}

TEST(Cli, MemoryJsonHasEveryKey) {
  const auto r = run_trainsim({"memory", source_path("scenarios/default.ini"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"parameters", "global_batch_samples", "tokens_per_step", "capacity", "fits", "stages"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["global_batch_samples"].get<double>(), 1 * 16 * 2);  // micro_batch x grad_accum x dp
  ASSERT_EQ(j["stages"].size(), 4u);
  for (const auto& st : j["stages"]) {
    for (const char* key : {"stage", "weights", "gradients", "optimizer_states", "activations", "comm_buffers",
                            "framework", "fragmentation", "total", "capacity", "fits", "headroom"})
      EXPECT_TRUE(st.contains(key)) << key;
    const double sum = st["weights"].get<double>() + st["gradients"].get<double>() +
                       st["optimizer_states"].get<double>() + st["activations"].get<double>() +
                       st["comm_buffers"].get<double>() + st["framework"].get<double>() +
                       st["fragmentation"].get<double>();
    EXPECT_NEAR(st["total"].get<double>(), sum, 1.0);
    EXPECT_NEAR(st["headroom"].get<double>(), st["capacity"].get<double>() - sum, 1.0);
  }
}

TEST(Cli, SetOverridesChangeTheResult) {
  const auto base = nlohmann::json::parse(run_trainsim({"memory", source_path("scenarios/default.ini"), "--json"}).out);
  const auto r = run_trainsim({"memory", source_path("scenarios/default.ini"), "--json", "--set", "parallel.zero=0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto zero0 = nlohmann::json::parse(r.out);
  EXPECT_GT(zero0["stages"][0]["optimizer_states"].get<double>(), base["stages"][0]["optimizer_states"].get<double>());
}

TEST(Cli, SameScenarioSameOutput) {
  const auto a = run_trainsim({"memory", source_path("scenarios/default.ini"), "--json"});
  const auto b = run_trainsim({"memory", source_path("scenarios/default.ini"), "--json"});
  EXPECT_EQ(a.out, b.out);
}

TEST(Cli, CheckPrintsTheResolvedScenario) {
  const auto r = run_trainsim({"check", source_path("scenarios/default.ini")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dp = 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("layers = 80"), std::string::npos);
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

TEST(Cli, StrongScalingKeepsTheGlobalBatch) {
  const auto r = testing::run_trainsim(
      {"scale", testing::source_path("scenarios/default.ini"), "--nodes", "8,16", "--json", "--set", "model.layers=8"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["mode"], "strong");
  const auto& p = j["points"];
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0]["global_batch_samples"], p[1]["global_batch_samples"]);
  EXPECT_EQ(p[1]["grad_accum"].get<int>() * 2, p[0]["grad_accum"].get<int>());
  EXPECT_DOUBLE_EQ(p[0]["speedup"].get<double>(), 1.0);
  const double speedup = p[0]["step_time_s"].get<double>() / p[1]["step_time_s"].get<double>();
  EXPECT_DOUBLE_EQ(p[1]["speedup"].get<double>(), speedup);
  EXPECT_DOUBLE_EQ(p[1]["efficiency"].get<double>(), speedup / 2);
  EXPECT_GT(speedup, 1.0);
}

TEST(Cli, WeakScalingKeepsTheWorkPerReplica) {
  const auto r = testing::run_trainsim({"scale", testing::source_path("scenarios/default.ini"), "--nodes", "8,16",
                                        "--mode", "weak", "--json", "--set", "model.layers=8"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto p = nlohmann::json::parse(r.out)["points"];
  EXPECT_EQ(p[1]["global_batch_samples"].get<double>(), 2 * p[0]["global_batch_samples"].get<double>());
  EXPECT_EQ(p[0]["grad_accum"], p[1]["grad_accum"]);
  const double speedup = p[1]["tokens_per_s"].get<double>() / p[0]["tokens_per_s"].get<double>();
  EXPECT_DOUBLE_EQ(p[1]["speedup"].get<double>(), speedup);
  EXPECT_GT(p[1]["efficiency"].get<double>(), 0.8);
}

// training.global_batch on the command line is the base's batch: each size's own grad_accum
// replaces it (strong: rescaled, weak: kept), never refused as a disagreement.
TEST(Cli, ScalingTakesAGlobalBatch) {
  for (const char* mode : {"strong", "weak"}) {
    const auto r = testing::run_trainsim({"scale", testing::source_path("scenarios/default.ini"), "--nodes", "8,16",
                                          "--mode", mode, "--json", "--set", "model.layers=8", "--set",
                                          "training.global_batch=64"});
    ASSERT_EQ(r.exit_code, 0) << mode << ": " << r.err;
    const auto p = nlohmann::json::parse(r.out)["points"];
    EXPECT_EQ(p[0]["grad_accum"].get<int>(), 32) << mode;  // 64 / (micro_batch 1 x dp 2)
    EXPECT_EQ(p[1]["global_batch_samples"].get<double>(), std::string(mode) == "strong" ? 64 : 128) << mode;
  }
}

// Node counts past the 2^20 GPUs a cluster may have: 2^31 nodes wrapped to a negative int and
// the command died of SIGFPE; 2^28 said "dp -67108864". One line, the limit, exit 2.
TEST(Cli, ScalingRefusesNodeCountsPastTheClusterLimit) {
  for (const char* mode : {"strong", "weak"})
    for (const char* nodes : {"2147483648", "268435456", "131076", "8,9223372036854775807"}) {
      const auto r = testing::run_trainsim(
          {"scale", testing::source_path("scenarios/default.ini"), "--nodes", nodes, "--mode", mode});
      EXPECT_EQ(r.exit_code, 2) << mode << " " << nodes << ": " << r.err;
      const std::string count = std::string(nodes).substr(std::string(nodes).find(',') + 1);
      EXPECT_EQ(r.err, std::string("trainsim: trainsim scale: --nodes = '") + nodes + "': " + count +
                           " nodes of 8 GPUs: trainsim simulates at most 1048576 GPUs\n")
          << mode << " " << nodes;
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
}

// A size that does not fit the GPU's memory was a plain row of the table and of --json (no
// fits, no warning, exit 0), and scale said no accuracy caveat at all. Each size says it as
// run does: fits and headroom in --json, a NO in the table, a warning on stderr; the caveats
// too, per size (more GPUs than the family's largest published run is one).
TEST(Cli, ScalingSaysWhichSizesDoNotFitAndTheirCaveats) {
  const std::vector<std::string> big = {"scale", testing::source_path("scenarios/default.ini"), "--nodes", "8,16",
                                        "--set", "model.layers=8", "--set", "training.recompute=none", "--set",
                                        "training.micro_batch=64", "--set", "parallel.zero=0"};
  std::vector<std::string> json_args = big;
  json_args.push_back("--json");
  const auto j = testing::run_trainsim(json_args);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto p = nlohmann::json::parse(j.out)["points"];
  for (const auto& point : p) {
    // What `run` says of the same size.
    const std::string nodes = std::to_string(point["nodes"].get<int>());
    std::vector<std::string> run_args = {"run", testing::source_path("scenarios/default.ini"), "--json"};
    run_args.insert(run_args.end(), big.begin() + 4, big.end());
    run_args.insert(run_args.end(), {"--set", "cluster.nodes=" + nodes, "--set",
                                     "training.grad_accum=" + std::to_string(point["grad_accum"].get<int>())});
    const auto r = testing::run_trainsim(run_args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto run = nlohmann::json::parse(r.out);
    EXPECT_EQ(point["fits"], run["fits"]) << nodes;
    EXPECT_EQ(point["headroom_bytes"], run["headroom_bytes"]) << nodes;
    EXPECT_EQ(point["caveats"], run["caveats"]) << nodes;
    EXPECT_EQ(point["validation_family"], run["validation_family"]) << nodes;
    EXPECT_FALSE(point["fits"].get<bool>()) << nodes;  // 64 samples a micro-batch, nothing recomputed: 159 GiB
    EXPECT_NE(j.err.find("trainsim scale: warning: " + nodes + " nodes: peak memory"), std::string::npos) << j.err;
  }
  EXPECT_NE(j.err.find("trainsim scale: caveat: accuracy: dense on Hopper"), std::string::npos) << j.err;
  const auto t = testing::run_trainsim(big);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("  fits\n"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("    NO\n"), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find("   yes\n"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("warning: 8 nodes: peak memory"), std::string::npos) << t.out;
  // Past the family's largest published run (10,752 H100s) the size's caveat says so, the
  // other's does not.
  const auto w = testing::run_trainsim({"scale", testing::source_path("scenarios/default.ini"), "--nodes", "8,1352",
                                        "--mode", "weak", "--json", "--set", "model.layers=8", "--set",
                                        "training.precision=fp8"});  // dense Hopper's runs are fp8
  ASSERT_EQ(w.exit_code, 0) << w.err;
  const auto q = nlohmann::json::parse(w.out)["points"];
  EXPECT_EQ(q[0]["caveats"].get<std::string>().find("extrapolated"), std::string::npos) << q[0].dump();
  EXPECT_NE(q[1]["caveats"].get<std::string>().find("10816 GPUs, more than"), std::string::npos) << q[1].dump();
  EXPECT_TRUE(q[1]["fits"].get<bool>());
  EXPECT_NE(w.err.find("trainsim scale: caveat (1352 nodes): "), std::string::npos) << w.err;
}

TEST(Cli, ScalingRejectsAnUnevenSplit) {
  const auto r = testing::run_trainsim({"scale", testing::source_path("scenarios/default.ini"), "--nodes", "8,12"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--nodes"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

// Issue 55: a layout that does not fit printed like one that does in --json, and a script
// took it. --json says whether it fits, and stderr says it does not in every output mode.
// The energy line gave "32.8 kW average" with no word of whose: it is the job's GPUs together,
// by their board power alone. The text says so, and the figure is that: between every GPU idle
// and every GPU at its TDP (the preset's), the energy per step over the step time.
TEST(Cli, RunSaysWhosePowerTheEnergyIs) {
  const std::string scenario = testing::source_path("scenarios/default.ini");
  const auto t = testing::run_trainsim({"run", scenario});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("kW average, the 64 GPUs' own power (no hosts, network or cooling)\n"), std::string::npos)
      << t.out;
  const auto j = testing::run_trainsim({"run", scenario, "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto r = nlohmann::json::parse(j.out);
  const GpuSpec h100 = *gpu_preset("h100-sxm");
  const double power = r["avg_power_w"].get<double>();
  EXPECT_DOUBLE_EQ(power, r["energy_per_step_j"].get<double>() / r["step_time_s"].get<double>());
  EXPECT_GT(power, 64 * h100.idle_power_w);
  EXPECT_LT(power, 64 * h100.tdp_w);
}

TEST(Cli, RunSaysWhetherTheLayoutFits) {
  const std::string scenario = testing::source_path("scenarios/default.ini");
  const auto fits = testing::run_trainsim({"run", scenario, "--json"});
  ASSERT_EQ(fits.exit_code, 0) << fits.err;
  EXPECT_EQ(testing::without_caveats(fits.err), "");
  const auto j = nlohmann::json::parse(fits.out);
  EXPECT_TRUE(j["fits"].get<bool>());
  EXPECT_EQ(j["headroom_bytes"].get<double>(),
            j["capacity_bytes"].get<double>() - j["peak_memory_bytes"].get<double>());
  EXPECT_GT(j["headroom_bytes"].get<double>(), 0);

  const auto big = testing::run_trainsim({"run", scenario, "--json", "--set", "training.micro_batch=16"});
  ASSERT_EQ(big.exit_code, 0) << big.err;
  const auto b = nlohmann::json::parse(big.out);
  EXPECT_FALSE(b["fits"].get<bool>());
  EXPECT_LT(b["headroom_bytes"].get<double>(), 0);
  const auto table = testing::run_trainsim({"run", scenario, "--set", "training.micro_batch=16"});
  for (const std::string& err : {testing::without_caveats(big.err), testing::without_caveats(table.err)}) {
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_EQ(err.rfind("trainsim run: warning: peak memory ", 0), 0u) << err;
    EXPECT_NE(err.find("the step would not run as configured"), std::string::npos) << err;
  }
}

TEST(Cli, RunWithADurationSimulatesTheRun) {
  const auto r = testing::run_trainsim({"run", testing::source_path("scenarios/default.ini"), "--json", "--set",
                                        "run.duration=2d", "--set", "failures.mtbf=30d"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(testing::without_caveats(r.err).empty()) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("run"));
  const auto& run = j["run"];
  for (const char* key : {"wall_time_s", "useful_time_s", "effective_training_time_ratio", "steps_completed",
                          "failures", "restarts", "checkpoints_written", "checkpoints_interrupted",
                          "checkpoint_overhead_s", "lost_work_s", "restart_overhead_s", "checkpoint_interval_s"})
    EXPECT_TRUE(run.contains(key)) << key;
  EXPECT_DOUBLE_EQ(run["wall_time_s"].get<double>(), 2 * 86400.0);
  EXPECT_GT(run["effective_training_time_ratio"].get<double>(), 0.5);
  EXPECT_LT(run["effective_training_time_ratio"].get<double>(), 1.0);
  // The run's steps are the step simulation's: useful time is whole steps of it.
  EXPECT_NEAR(run["useful_time_s"].get<double>(), run["steps_completed"].get<double>() * j["step_time_s"].get<double>(),
              1e-6);
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

// The elastic path end to end: with no spares, shrinking reaches sizes the first step
// simulation did not cover; each is simulated in its own process and the run repeated.
TEST(Cli, ShrinkingRunSimulatesEachSizeItReaches) {
  const auto r = testing::run_trainsim({"run", testing::source_path("scenarios/default.ini"), "--json", "--set",
                                        "cluster.nodes=16", "--set", "run.duration=10d", "--set", "failures.mtbf=20d",
                                        "--set", "failures.causes=hardware", "--set", "failures.spare_nodes=0", "--set",
                                        "failures.repair=2d", "--set", "elastic.policy=shrink", "--set",
                                        "elastic.global_batch=scale"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& run = j["run"];
  EXPECT_GT(run["resizes"].get<int>(), 0);
  EXPECT_LT(run["min_dp"].get<int>(), 4);  // 16 nodes: TP 8 x PP 4 = 4 nodes a replica, dp 4
  // The global batch scales with the replicas: 16 micro-batches of 1 sample each.
  EXPECT_DOUBLE_EQ(run["global_batch_min"].get<double>(), 16.0 * run["min_dp"].get<int>());
  EXPECT_EQ(run["samples_duplicated"].get<double>(), 0);
  EXPECT_EQ(run["waiting_for_nodes_s"].get<double>(), 0);
  // The run's useful time is made of the step times at several sizes now.
  EXPECT_GT(run["useful_time_s"].get<double>(), 0);
}

TEST(Cli, RunWarnsWhenTheStepDoesNotFitInMemory) {
  const auto fits = run_trainsim({"run", source_path("scenarios/default.ini")});
  ASSERT_EQ(fits.exit_code, 0) << fits.err;
  EXPECT_EQ(fits.out.find("warning: peak memory"), std::string::npos) << fits.out;
  const auto over = run_trainsim({"run", source_path("scenarios/default.ini"), "--set", "training.micro_batch=4",
                                  "--set", "training.recompute=none"});
  ASSERT_EQ(over.exit_code, 0) << over.err;
  EXPECT_NE(over.out.find("warning: peak memory"), std::string::npos) << over.out;
  EXPECT_NE(over.out.find("exceeds the h100-sxm's 79.65 GiB"), std::string::npos) << over.out;
}

TEST(Cli, RunWithStragglersReportsTheirCost) {
  // 64 GPUs for 10 days, each turning slow every 20 days: about 30 stragglers, each slowing
  // the steps by the step with one slow GPU until it is drained.
  const auto r = run_trainsim({"run", source_path("scenarios/default.ini"), "--set", "run.duration=10d", "--set",
                               "variations.straggler_mtbf=20d", "--set", "variations.slow_gpu_speed=0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("stragglers            "), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(
      run_trainsim({"run", source_path("scenarios/default.ini"), "--json", "--set", "run.duration=10d", "--set",
                    "variations.straggler_mtbf=20d", "--set", "variations.slow_gpu_speed=0.5"})
          .out);
  const auto& run = j["run"];
  EXPECT_GT(run["stragglers"].get<int>(), 10);
  EXPECT_GT(run["straggler_drains"].get<int>(), 0);
  EXPECT_GT(run["straggler_slowdown_s"].get<double>(), 0);
  EXPECT_FALSE(j.contains("variations"));  // no GPU is slow in the step itself
}

TEST(Cli, StragglersPastTheRunsEventBudgetAreRefused) {
  // A GPU turning slow every second on 64 GPUs for 30 days: 1.7e8 stragglers, past the
  // 1e6 events a run simulates.
  const auto r = run_trainsim({"run", source_path("scenarios/default.ini"), "--set", "run.duration=30d", "--set",
                               "variations.straggler_mtbf=1s"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("variations.straggler_mtbf = '1s'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1e+06 events"), std::string::npos) << r.err;
}

TEST(Cli, RunSaysWhatANeighbourCostsBothJobs) {
  const std::string example = source_path("scenarios/examples/llama3-8b-noisy-neighbour.ini");
  const auto text = run_trainsim({"run", example});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  // The neighbour's file by its name: the same line from any checkout or install location.
  EXPECT_NE(text.out.find("neighbour             neighbour-llama3-70b-dp.ini: 128 GPUs on the nodes between the "
                          "job's; its step"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("against the job alone"), std::string::npos) << text.out;
  const auto j = nlohmann::json::parse(run_trainsim({"run", example, "--json"}).out);
  const auto alone =
      nlohmann::json::parse(run_trainsim({"run", example, "--set", "variations.neighbour=none", "--json"}).out);
  const auto& n = j["variations"]["neighbour"];
  EXPECT_EQ(n["gpus"].get<int>(), 128);
  EXPECT_EQ(n["placement"], "interleaved");
  EXPECT_GE(n["steps"].get<int>(), 1);
  EXPECT_GT(n["step_time_increase"].get<double>(), 0.01);  // sharing the leaves' uplinks
  EXPECT_EQ(j["variations"]["uniform_step_time_s"].get<double>(), alone["step_time_s"].get<double>());
  EXPECT_GT(j["step_time_s"].get<double>(), alone["step_time_s"].get<double>() * 1.01);
  EXPECT_FALSE(alone.contains("variations"));
  // On leaves of their own, neither job slows the other.
  const auto apart = nlohmann::json::parse(
      run_trainsim({"run", example, "--set", "variations.neighbour_placement=after", "--json"}).out);
  EXPECT_NEAR(apart["step_time_s"].get<double>() / alone["step_time_s"].get<double>(), 1.0, 1e-9);
  EXPECT_NEAR(apart["variations"]["neighbour"]["step_time_increase"].get<double>(), 0.0, 1e-9);
}

TEST(Cli, RunSaysWhatSlowGpusCost) {
  // Two slow GPUs at 80 %: the step against the uniform cluster's, the GPUs listed, and the
  // other replicas' wait at the gradient reductions; the same under --full. GPUs 3 and 19 are
  // stages 0 and 1 of replica 0 under Megatron-Core's order (TP 8 innermost, then DP 2).
  const std::vector<std::string> slow{"--set", "variations.slow_gpu_ids=3+19", "--set", "variations.slow_gpu_speed=0.8"};
  std::vector<std::string> args{"run", source_path("scenarios/default.ini")};
  args.insert(args.end(), slow.begin(), slow.end());
  const auto text = run_trainsim(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("slow GPUs             2 at 80 % speed: GPU 3 (stage"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("against the uniform cluster's"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("most for replica 0 (dp 0)"), std::string::npos) << text.out;  // both in replica 0
  args.push_back("--json");
  const auto reduced = nlohmann::json::parse(run_trainsim(args).out);
  const auto uniform = nlohmann::json::parse(run_trainsim({"run", source_path("scenarios/default.ini"), "--json"}).out);
  EXPECT_EQ(reduced["slow_gpus"].get<int>(), 2);
  EXPECT_EQ(reduced["variations"]["slow_gpu_ids"], nlohmann::json::parse("[3, 19]"));
  EXPECT_EQ(reduced["variations"]["uniform_step_time_s"].get<double>(), uniform["step_time_s"].get<double>());
  EXPECT_GT(reduced["variations"]["step_time_increase"].get<double>(), 0.01);
  EXPECT_GT(reduced["straggler_wait_s"].get<double>(), 0);
  EXPECT_EQ(reduced["variations"]["most_waited_for_replica"].get<int>(), 0);
  EXPECT_FALSE(uniform.contains("variations"));
  args.push_back("--full");
  const auto full = nlohmann::json::parse(run_trainsim(args).out);
  EXPECT_NEAR(full["step_time_s"].get<double>() / reduced["step_time_s"].get<double>(), 1.0, 0.01);
  // A NIC at a quarter of its bandwidth: named with its node, and the step slower.
  const auto nic = run_trainsim({"run", source_path("scenarios/default.ini"), "--set", "variations.slow_nic_ids=12",
                                 "--set", "variations.slow_nic_speed=25%"});
  ASSERT_EQ(nic.exit_code, 0) << nic.err;
  EXPECT_NE(nic.out.find("slow NICs             1 at 25 % bandwidth: NIC 12 (node 1, NIC 4)"), std::string::npos)
      << nic.out;
  EXPECT_EQ(nic.out.find("slow GPUs"), std::string::npos) << nic.out;
}

}  // namespace
}  // namespace trainsim
