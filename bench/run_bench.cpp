// trainsim-bench-run: how long a long run takes to simulate (issue 7: 54 days of Llama 3
// 405B on 16,384 H100 with failures and checkpoints, <= 30 s wall on 2 cores; issue 18: the
// same job on 131,072 GPUs): the step and the checkpoint storage simulated in child
// processes, then the run, as `trainsim run` does.
//
//   trainsim-bench-run [SCENARIO] [GPUS...]
//     (default: scenarios/examples/llama3-405b-54-days.ini at its own size; each GPU count
//      sets cluster.nodes = GPUS / gpus_per_node)

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_main.hpp"
#include "bench/process_usage.hpp"
#include "sim/cli/scenario_compute_model.hpp"
#include "sim/run/run_in_processes.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace {

int run_bench(int argc, char** argv) {
  const std::string path =
      argc > 1 ? argv[1] : std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/examples/llama3-405b-54-days.ini";
  std::vector<std::vector<std::string>> sizes;
  const int gpus_per_node = trainsim::load_scenario(path).cluster.gpus_per_node;
  for (int i = 2; i < argc; ++i)
    sizes.push_back({"cluster.nodes=" + std::to_string(std::stol(argv[i]) / gpus_per_node)});
  if (sizes.empty()) sizes.push_back({});
  std::printf("scenario       %s\n", path.c_str());
  for (const auto& overrides : sizes) {
    const auto start = std::chrono::steady_clock::now();
    const trainsim::Scenario s = trainsim::load_scenario(path, overrides);
    const auto compute = trainsim::cli::scenario_compute_model(s);
    const trainsim::RunResult r = trainsim::simulate_run_in_processes(s, *compute);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("gpus           %d\n", s.cluster.total_gpus());
    std::printf("run            %.1f days simulated, %d failures, %d planned stops, %d checkpoints\n",
                r.wall_time_s / 86400, r.failures, r.planned_interruptions, r.checkpoints_written);
    std::printf("wall           %.2f s\n", wall);
    std::printf("peak RSS       %.0f MB (the largest child process so far)\n",
                trainsim::bench::peak_children_rss_bytes() / 1e6);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return trainsim::bench::bench_main("trainsim-bench-run", [&] { return run_bench(argc, argv); });
}
