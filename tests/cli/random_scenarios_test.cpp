// Seeded random scenarios through the real CLI: every layout, schedule, precision,
// recompute, offload, fabric and run-level policy the generator draws is valid, so each
// must simulate (exit 0) and keep the invariants the report's readers rely on. The draws
// are fixed (std::mt19937 from the test's index), so a failure names a reproducible point.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;
using testing::source_path;

class Draw {
 public:
  explicit Draw(std::uint32_t seed) : gen_(seed) {}
  template <typename T>
  T pick(std::initializer_list<T> values) {
    return values.begin()[gen_() % values.size()];
  }
  bool chance(unsigned one_in) { return gen_() % one_in == 0; }

 private:
  std::mt19937 gen_;
};

struct Point {
  std::vector<std::string> args;
  std::string command_line() const {
    std::ostringstream out;
    out << "trainsim";
    for (const std::string& a : args) out << " " << a;
    return out.str();
  }
};

Point point(std::vector<std::string> sets) {
  Point p{{"run", source_path("scenarios/default.ini"), "--json"}};
  for (std::string& s : sets) {
    p.args.push_back("--set");
    p.args.push_back(std::move(s));
  }
  return p;
}

// One training step: any parallel layout the scenario rules accept.
Point step_point(std::uint32_t seed) {
  Draw d(seed);
  const std::string model = d.pick<std::string>({"llama3-8b", "llama3-70b", "gpt3-175b", "mixtral-8x7b", "llama2-7b"});
  const std::string cluster = d.pick<std::string>({"dgx-a100", "dgx-h100", "hgx-h200"});
  const int tp = d.pick({1, 2, 4, 8}), pp = d.pick({1, 2, 3, 4, 8}), cp = d.pick({1, 1, 2, 4}),
            dp = d.pick({1, 2, 4, 8});
  // Powers of two: the smaller divides the larger, so ep divides dp.
  const int ep = model == "mixtral-8x7b" ? std::min(d.pick({1, 2, 4, 8}), dp) : 1;
  const int gpus = tp * pp * cp * dp;
  const int per_node = gpus % 8 == 0 ? 8 : gpus;
  std::string schedule = d.pick<std::string>({"gpipe", "1f1b", "interleaved", "zb-h1"});
  if (schedule == "interleaved" && pp == 1) schedule = "1f1b";
  const bool interleaved = schedule == "interleaved";
  // The interleaved schedule runs micro-batches in groups of pp.
  const int grad_accum = interleaved ? pp * d.pick({1, 2, 4}) : d.pick({1, 2, 3, 8, 16});
  std::string precision = d.pick<std::string>({"bf16", "fp16", "fp8", "fp32"});
  if (precision == "fp8" && cluster == "dgx-a100") precision = "bf16";  // no fp8 tensor cores
  return point({"model.preset=" + model,
                "cluster.preset=" + cluster,
                "parallel.tp=" + std::to_string(tp),
                "parallel.pp=" + std::to_string(pp),
                "parallel.cp=" + std::to_string(cp),
                "parallel.dp=" + std::to_string(dp),
                "parallel.ep=" + std::to_string(ep),
                "cluster.nodes=" + std::to_string(gpus / per_node),
                "cluster.gpus_per_node=" + std::to_string(per_node),
                "parallel.schedule=" + schedule,
                "parallel.virtual_stages=" + std::to_string(interleaved ? d.pick({2, 4}) : 1),
                "parallel.zero=" + std::to_string(d.pick({0, 1, 2, 3})),
                "parallel.sequence_parallel=" + d.pick<std::string>({"true", "false"}),
                "parallel.overlap_grad_reduce=" + d.pick<std::string>({"true", "false"}),
                "training.recompute=" + d.pick<std::string>({"none", "selective", "full"}),
                "training.attention=" + d.pick<std::string>({"flash", "standard"}),
                "training.precision=" + precision,
                "training.micro_batch=" + std::to_string(d.pick({1, 2, 4})),
                "training.grad_accum=" + std::to_string(grad_accum),
                "training.offload=" + d.pick<std::string>({"none", "none", "cpu"}),
                "cluster.fabric=" + d.pick<std::string>({"rail-optimized", "fat-tree", "single-switch"}),
                // Extreme lengths too: HFU must stay <= 1 however much of the work is attention.
                "model.seq_len=" + std::to_string(d.pick({1024, 2048, 4096, 8192, 1048576, 100000000})),
                "run.seed=" + std::to_string(d.pick({1, 7, 42}))});
}

// A whole run of a small job: failures, checkpoints, maintenance, spares, elastic policies.
Point run_point(std::uint32_t seed) {
  Draw d(seed);
  const int nodes = d.pick({2, 4, 8, 16, 64});
  const bool shrink = d.chance(2);
  std::vector<std::string> sets{"model.preset=llama3-8b", "parallel.tp=8", "parallel.pp=1",
                                "cluster.nodes=" + std::to_string(nodes), "parallel.dp=" + std::to_string(nodes),
                                "training.grad_accum=" + std::to_string(d.pick({1, 4})),
                                d.chance(2) ? "run.duration=" + d.pick<std::string>({"1h", "12h", "3d", "20d"})
                                            : "run.train_steps=" + d.pick<std::string>({"10", "1000", "20000"}),
                                "failures.mtbf=" + d.pick<std::string>({"0s", "10d", "100d", "1000d", "0.05/day"}),
                                "failures.unit=" + d.pick<std::string>({"node", "gpu"}),
                                "failures.distribution=" + d.pick<std::string>({"exponential", "weibull"}),
                                "failures.causes=" + d.pick<std::string>({"llama3", "hardware"}),
                                "failures.spare_nodes=" + d.pick<std::string>({"unlimited", "0", "1", "4"}),
                                "failures.repair=" + d.pick<std::string>({"1h", "1d", "5d"}),
                                "checkpoint.interval=" + d.pick<std::string>({"auto", "5min", "1h", "100steps"}),
                                "checkpoint.mode=" + d.pick<std::string>({"sync", "async"}),
                                "checkpoint.save_data_cursor=" + d.pick<std::string>({"true", "false"}),
                                "checkpoint.sampler=" + d.pick<std::string>({"global", "per_rank"}),
                                // Shrinking reloads the checkpoint at another size: it must be reshardable.
                                "checkpoint.reshardable=" + std::string(shrink ? "true" : "false"),
                                "elastic.policy=" + std::string(shrink ? "shrink" : "wait"),
                                "elastic.grow=" + d.pick<std::string>({"auto", "always", "never"}),
                                "elastic.global_batch=" + d.pick<std::string>({"keep", "scale"}),
                                "elastic.min_dp=" + std::to_string(d.pick({1, 2, nodes})),
                                "run.seed=" + std::to_string(d.pick({1, 7, 42, 1000}))};
  if (d.chance(3)) {
    sets.push_back("failures.maintenance_interval=" + d.pick<std::string>({"6h", "2d"}));
    sets.push_back("failures.maintenance_downtime=" + d.pick<std::string>({"10min", "2h"}));
  }
  return point(sets);
}

class RandomStep : public ::testing::TestWithParam<int> {};
class RandomRun : public ::testing::TestWithParam<int> {};

TEST_P(RandomStep, SimulatesAndItsBreakdownAddsUp) {
  const Point p = step_point(static_cast<std::uint32_t>(GetParam()));
  const auto r = run_trainsim(p.args);
  ASSERT_EQ(r.exit_code, 0) << p.command_line() << "\n" << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const double step = j["step_time_s"].get<double>();
  ASSERT_GT(step, 0) << p.command_line();
  double sum = 0;
  for (const auto& [name, seconds] : j["breakdown_s"].items()) {
    EXPECT_GE(seconds.get<double>(), 0) << name << ": " << p.command_line();
    sum += seconds.get<double>();
  }
  EXPECT_NEAR(sum, step, 1e-6 * step) << p.command_line();
  EXPECT_GT(j["mfu"].get<double>(), 0) << p.command_line();
  EXPECT_LT(j["mfu"].get<double>(), 1) << p.command_line();
  EXPECT_GE(j["hfu"].get<double>(), j["mfu"].get<double>() * (1 - 1e-12)) << p.command_line();
  EXPECT_LE(j["hfu"].get<double>(), 1.0) << p.command_line();
  EXPECT_GE(j["bubble_fraction"].get<double>(), 0) << p.command_line();
  EXPECT_LT(j["bubble_fraction"].get<double>(), 1) << p.command_line();
  EXPECT_GT(j["peak_memory_bytes"].get<double>(), 0) << p.command_line();
}

TEST_P(RandomRun, AccountsForEveryWallClockSecond) {
  const Point p = run_point(static_cast<std::uint32_t>(GetParam()));
  const auto r = run_trainsim(p.args);
  ASSERT_EQ(r.exit_code, 0) << p.command_line() << "\n" << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("run")) << p.command_line();
  const auto& run = j["run"];
  const double wall = run["wall_time_s"].get<double>();
  const double accounted = run["useful_time_s"].get<double>() + run["checkpoint_overhead_s"].get<double>() +
                           run["lost_work_s"].get<double>() + run["restart_overhead_s"].get<double>() +
                           run["waiting_for_nodes_s"].get<double>() + run["unfinished_step_s"].get<double>();
  EXPECT_NEAR(accounted, wall, 1e-6 * wall) << p.command_line();
  const double ettr = run["effective_training_time_ratio"].get<double>();
  EXPECT_GT(ettr, 0) << p.command_line();
  EXPECT_LE(ettr, 1) << p.command_line();
  for (const char* key : {"lost_work_s", "restart_overhead_s", "samples_duplicated", "samples_skipped"})
    EXPECT_GE(run[key].get<double>(), 0) << key << ": " << p.command_line();
  EXPECT_LE(run["global_batch_min"].get<double>(), run["global_batch_max"].get<double>()) << p.command_line();
  EXPECT_GE(run["min_dp"].get<double>(), 1) << p.command_line();
}

INSTANTIATE_TEST_SUITE_P(Seeded, RandomStep, ::testing::Range(0, 32));
INSTANTIATE_TEST_SUITE_P(Seeded, RandomRun, ::testing::Range(0, 24));

}  // namespace
}  // namespace trainsim
