// trainsim-bench-run: how long a long run takes to simulate (issue 7: 54 days of Llama 3
// 405B on 16,384 H100 with failures and checkpoints, <= 30 s wall on 2 cores): the step and
// the checkpoint storage simulated in child processes, then the run, as `trainsim run` does.
//
//   trainsim-bench-run [SCENARIO]   (default: scenarios/examples/llama3-405b-54-days.ini)

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "bench/process_usage.hpp"
#include "sim/core/large_stack_call.hpp"
#include "sim/cli/scenario_compute_model.hpp"
#include "sim/run/run_in_processes.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace {

int run_bench(int argc, char** argv) {
  const std::string path =
      argc > 1 ? argv[1] : std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/examples/llama3-405b-54-days.ini";
  try {
    const auto start = std::chrono::steady_clock::now();
    const trainsim::Scenario s = trainsim::load_scenario(path);
    const auto compute = trainsim::cli::scenario_compute_model(s);
    const trainsim::RunResult r = trainsim::simulate_run_in_processes(s, *compute);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("scenario       %s\n", path.c_str());
    std::printf("run            %.1f days simulated, %d failures, %d planned stops, %d checkpoints\n",
                r.wall_time_s / 86400, r.failures, r.planned_interruptions, r.checkpoints_written);
    std::printf("wall           %.2f s\n", wall);
    std::printf("peak RSS       %.0f MB (the largest child process)\n",
                trainsim::bench::peak_children_rss_bytes() / 1e6);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trainsim-bench-run: %s\n", e.what());
    return 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  int code = 1;
  // The engine runs on the simulation's large stack (sim/core/large_stack_call.hpp).
  trainsim::large_stack_call([&] { code = run_bench(argc, argv); });
  return code;
}
