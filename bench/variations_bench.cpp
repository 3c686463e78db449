// trainsim-bench-variations: what slow GPUs cost to simulate. For each cluster size and each
// count of slow GPUs (drawn with run.seed at 90 % speed), the step simulated with one
// representative per class of replicas and, up to --full-up-to GPUs, with every replica
// (--full), side by side in one run (the targets: 1, 16 and 256 slow GPUs <= 10 s at
// 16,384 GPUs and <= 60 s at 131,072; --full <= 30 s at 16,384).
//
//   trainsim-bench-variations [--scenario FILE] [--full-up-to GPUS] [--slow LIST] [--repeat N] [GPUS...]
//     (defaults: scenarios/examples/llama3-405b-16k-h100.ini at its own size, --full up to
//      1,024 GPUs, --slow 0,1,16,256, --repeat 1; each simulation runs in its own process,
//      N times with --repeat: the wall column is then the fastest run's and the slowest
//      follows it, the spread a shared machine adds)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_main.hpp"
#include "bench/process_usage.hpp"
#include "sim/cli/scenario_compute_model.hpp"
#include "sim/core/error.hpp"
#include "sim/core/forked_call.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/scenario/value_parsers.hpp"
#include "sim/step/step_simulation.hpp"

namespace {

// One step: "step_time wall peak_rss".
std::string simulate_one(const std::string& path, const std::vector<std::string>& overrides, bool full) {
  const auto start = std::chrono::steady_clock::now();
  const trainsim::Scenario s = trainsim::load_scenario(path, overrides);
  const auto compute = trainsim::cli::scenario_compute_model(s);
  trainsim::StepOptions options;
  options.reduce_symmetry = !full;
  const trainsim::StepResult r = trainsim::simulate_step(s, *compute, options);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char line[96];
  std::snprintf(line, sizeof line, "%.6f %.2f %.0f", r.step_time_s, wall, trainsim::bench::peak_rss_bytes() / 1e6);
  return line;
}

struct Args {
  std::string path = std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/examples/llama3-405b-16k-h100.ini";
  long full_up_to = 1024;
  std::vector<long> slow{0, 1, 16, 256};
  long repeat = 1;
  std::vector<long> gpus;
};

long number_arg(const std::string& option, const std::string& text) {
  const auto v = trainsim::parse::integer(text);
  if (!v || *v < 0) throw trainsim::InputError("trainsim-bench-variations", option, text, "expected an integer >= 0");
  return static_cast<long>(*v);
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw trainsim::InputError("trainsim-bench-variations", arg, "", "needs a value");
      return argv[++i];
    };
    if (arg == "--scenario") {
      a.path = value();
    } else if (arg == "--full-up-to") {
      a.full_up_to = number_arg(arg, value());
    } else if (arg == "--repeat") {
      a.repeat = number_arg(arg, value());
      if (a.repeat < 1)
        throw trainsim::InputError("trainsim-bench-variations", arg, std::to_string(a.repeat), "expected at least 1");
    } else if (arg == "--slow") {
      a.slow.clear();
      const std::string list = value();
      for (const std::string_view piece : trainsim::parse::pieces(list, ","))
        a.slow.push_back(number_arg(arg, std::string(piece)));
    } else {
      a.gpus.push_back(number_arg("GPUS", arg));
    }
  }
  return a;
}

// One configuration simulated `repeat` times, each in its own process: its step (the same
// every time: the simulation is deterministic), the fastest and slowest wall, the largest RSS.
struct Measured {
  double step = 0, fastest = 0, slowest = 0, rss = 0;
};

Measured measure(const std::string& path, const std::vector<std::string>& overrides, bool full, long repeat) {
  Measured m;
  for (long r = 0; r < repeat; ++r) {
    double step = 0, wall = 0, rss = 0;
    std::sscanf(trainsim::forked_call([&] { return simulate_one(path, overrides, full); }).c_str(), "%lf %lf %lf",
                &step, &wall, &rss);
    if (r > 0 && step != m.step) throw std::logic_error("trainsim-bench-variations: the step differed between runs");
    m.step = step;
    m.fastest = r == 0 ? wall : std::min(m.fastest, wall);
    m.slowest = std::max(m.slowest, wall);
    m.rss = std::max(m.rss, rss);
  }
  return m;
}

int run_bench(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  const trainsim::Scenario base = trainsim::load_scenario(a.path);
  std::vector<long> sizes = a.gpus;
  if (sizes.empty()) sizes.push_back(base.cluster.total_gpus());
  std::printf("scenario       %s (slow GPUs at 90 %% speed, drawn with run.seed)\n", a.path.c_str());
  if (a.repeat > 1)
    std::printf("repeat         %ld runs each: wall is the fastest run's, the slowest in parentheses\n", a.repeat);
  std::printf("     gpus   slow  step time (s)  wall (s)  peak RSS (MB)  --full step (s)  --full wall (s)\n");
  for (const long gpus : sizes) {
    for (const long slow : a.slow) {
      const std::vector<std::string> overrides{"cluster.nodes=" + std::to_string(gpus / base.cluster.gpus_per_node),
                                               "variations.slow_gpus=" + std::to_string(slow),
                                               "variations.slow_gpu_speed=0.9"};
      const Measured reduced = measure(a.path, overrides, false, a.repeat);
      std::printf("%9ld  %5ld  %13.4f  %8.2f  %13.0f", gpus, slow, reduced.step, reduced.fastest, reduced.rss);
      if (a.repeat > 1) std::printf("  (slowest %.2f)", reduced.slowest);
      if (gpus <= a.full_up_to) {
        const Measured full = measure(a.path, overrides, true, a.repeat);
        std::printf("  %15.4f  %15.2f", full.step, full.fastest);
        if (a.repeat > 1) std::printf("  (slowest %.2f)", full.slowest);
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return trainsim::bench::bench_main("trainsim-bench-variations", [&] { return run_bench(argc, argv); });
}
