// trainsim-bench-variations: what slow GPUs cost to simulate. For each cluster size and each
// count of slow GPUs (drawn with run.seed at 90 % speed), the step simulated with one
// representative per class of replicas and, up to --full-up-to GPUs, with every replica
// (--full), side by side in one run (the targets: 1, 16 and 256 slow GPUs <= 10 s at
// 16,384 GPUs and <= 60 s at 131,072; --full <= 30 s at 16,384).
//
//   trainsim-bench-variations [--scenario FILE] [--full-up-to GPUS] [--slow LIST] [GPUS...]
//     (defaults: scenarios/examples/llama3-405b-16k-h100.ini at its own size, --full up to
//      1,024 GPUs, --slow 0,1,16,256; each simulation runs in its own process)

#include <chrono>
#include <cstdio>
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

int run_bench(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  const trainsim::Scenario base = trainsim::load_scenario(a.path);
  std::vector<long> sizes = a.gpus;
  if (sizes.empty()) sizes.push_back(base.cluster.total_gpus());
  std::printf("scenario       %s (slow GPUs at 90 %% speed, drawn with run.seed)\n", a.path.c_str());
  std::printf("     gpus   slow  step time (s)  wall (s)  peak RSS (MB)  --full step (s)  --full wall (s)\n");
  for (const long gpus : sizes) {
    for (const long slow : a.slow) {
      const std::vector<std::string> overrides{"cluster.nodes=" + std::to_string(gpus / base.cluster.gpus_per_node),
                                               "variations.slow_gpus=" + std::to_string(slow),
                                               "variations.slow_gpu_speed=0.9"};
      double step = 0, wall = 0, rss = 0;
      std::sscanf(trainsim::forked_call([&] { return simulate_one(a.path, overrides, false); }).c_str(), "%lf %lf %lf",
                  &step, &wall, &rss);
      std::printf("%9ld  %5ld  %13.4f  %8.2f  %13.0f", gpus, slow, step, wall, rss);
      if (gpus <= a.full_up_to) {
        double full_step = 0, full_wall = 0, full_rss = 0;
        std::sscanf(trainsim::forked_call([&] { return simulate_one(a.path, overrides, true); }).c_str(), "%lf %lf %lf",
                    &full_step, &full_wall, &full_rss);
        std::printf("  %15.4f  %15.2f", full_step, full_wall);
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
