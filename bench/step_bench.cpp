// trainsim-bench-step: how long one training step takes to simulate, and how much memory
// it needs (issue 4: Llama 3 405B on 16,384 H100 of rail-optimized DGX H100 nodes, TP 8,
// PP 16, DP 128, interleaved, <= 10 s wall and <= 4 GB RSS on 2 cores; issue 18: the same
// on 131,072 GPUs, and on 1,048,576 GPUs <= 90 s and <= 16 GB).
//
//   trainsim-bench-step [SCENARIO] [GPUS...]
//     (default: scenarios/examples/llama3-405b-16k-h100.ini at its own size; each GPU count
//      sets cluster.nodes = GPUS / gpus_per_node and runs in its own process)

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_main.hpp"
#include "bench/process_usage.hpp"
#include "sim/cli/scenario_compute_model.hpp"
#include "sim/core/forked_call.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/step/step_simulation.hpp"

namespace {

// One step of `path` (with `overrides`), as one line of the table.
std::string bench_one(const std::string& path, const std::vector<std::string>& overrides) {
  const auto start = std::chrono::steady_clock::now();
  const trainsim::Scenario s = trainsim::load_scenario(path, overrides);
  const auto compute = trainsim::cli::scenario_compute_model(s);
  const trainsim::StepResult r = trainsim::simulate_step(s, *compute);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char line[200];
  std::snprintf(line, sizeof line, "%9d  %12.4f  %8.2f  %10.2f  %8.0f\n", r.gpus, r.step_time_s, wall, r.sim_wall_s,
                trainsim::bench::peak_rss_bytes() / 1e6);
  return line;
}

int run_bench(int argc, char** argv) {
  const std::string path =
      argc > 1 ? argv[1] : std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/examples/llama3-405b-16k-h100.ini";
  const trainsim::Scenario base = trainsim::load_scenario(path);
  std::vector<std::vector<std::string>> sizes;
  for (int i = 2; i < argc; ++i) {
    const long gpus = std::stol(argv[i]);
    sizes.push_back({"cluster.nodes=" + std::to_string(gpus / base.cluster.gpus_per_node)});
  }
  if (sizes.empty()) sizes.push_back({});
  std::printf("scenario       %s\n", path.c_str());
  std::printf("     gpus  step time (s)  wall (s)  simulation (s)  peak RSS (MB)\n");
  for (const auto& overrides : sizes) {
    std::fputs(trainsim::forked_call([&] { return bench_one(path, overrides); }).c_str(), stdout);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return trainsim::bench::bench_main("trainsim-bench-step", [&] { return run_bench(argc, argv); });
}
