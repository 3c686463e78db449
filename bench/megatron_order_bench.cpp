// trainsim-bench-megatron-order: what Megatron-Core's rank order costs to simulate against
// trainsim's former default (issue 55, item 2: DeepSeek-V3 on GB300 NVL72 racks, 64 GPUs a
// rack, TP 1, PP 4 x 4 virtual, EP 32, HybridEP, ZeRO-1; with tp-cp-dp-pp the step took 35 s
// to simulate at 1,024 GPUs and more than 15 minutes at 8,192; target <= 5 s at 8,192). Each
// size is simulated under both orders, each run in its own process, the fastest of --repeat.
//
//   trainsim-bench-megatron-order [--scenario FILE] [--repeat N] [GPUS...]
//     (defaults: bench/scenarios/deepseek-v3-gb300-megatron-order.ini at 1,024 GPUs, 1 run)

#include <algorithm>
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

constexpr const char* k_name = "trainsim-bench-megatron-order";

// One step: "step_time wall peak_rss".
std::string simulate_one(const std::string& path, const std::vector<std::string>& overrides) {
  const auto start = std::chrono::steady_clock::now();
  const trainsim::Scenario s = trainsim::load_scenario(path, overrides);
  const auto compute = trainsim::cli::scenario_compute_model(s);
  const trainsim::StepResult r = trainsim::simulate_step(s, *compute);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char line[96];
  std::snprintf(line, sizeof line, "%.10f %.2f %.0f", r.step_time_s, wall, trainsim::bench::peak_rss_bytes() / 1e6);
  return line;
}

long number_arg(const std::string& option, const std::string& text, long least) {
  const auto v = trainsim::parse::integer(text);
  if (!v || *v < least)
    throw trainsim::InputError(k_name, option, text, "expected an integer >= " + std::to_string(least));
  return static_cast<long>(*v);
}

int run_bench(int argc, char** argv) {
  std::string path = std::string(TRAINSIM_SOURCE_DIR) + "/bench/scenarios/deepseek-v3-gb300-megatron-order.ini";
  long repeat = 1;
  std::vector<long> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw trainsim::InputError(k_name, arg, "", "needs a value");
      return argv[++i];
    };
    if (arg == "--scenario")
      path = value();
    else if (arg == "--repeat")
      repeat = number_arg(arg, value(), 1);
    else
      sizes.push_back(number_arg("GPUS", arg, 1));
  }
  if (sizes.empty()) sizes.push_back(1024);
  const trainsim::Scenario base = trainsim::load_scenario(path);
  std::printf("scenario       %s (fastest of %ld)\n", path.c_str(), repeat);
  std::printf("     gpus  order         step time (s)  wall (s)  peak RSS (MB)\n");
  for (const long gpus : sizes) {
    for (const char* order : {"tp-cp-pp-dp", "tp-cp-dp-pp"}) {
      const std::vector<std::string> overrides{"cluster.nodes=" + std::to_string(gpus / base.cluster.gpus_per_node),
                                               std::string("parallel.order=") + order};
      double step = 0, fastest = 0, rss = 0;
      for (long r = 0; r < repeat; ++r) {
        double s = 0, wall = 0, peak = 0;
        std::sscanf(trainsim::forked_call([&] { return simulate_one(path, overrides); }).c_str(), "%lf %lf %lf", &s,
                    &wall, &peak);
        step = s;
        fastest = r == 0 ? wall : std::min(fastest, wall);
        rss = std::max(rss, peak);
      }
      std::printf("%9ld  %-12s  %13.4f  %8.2f  %13.0f\n", gpus, order, step, fastest, rss);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return trainsim::bench::bench_main(k_name, [&] { return run_bench(argc, argv); });
}
