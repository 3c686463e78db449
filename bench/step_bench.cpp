// trainsim-bench-step: how long one training step takes to simulate, and how much memory
// it needs (issue 4: Llama 3 405B on 16,384 H100 of rail-optimized DGX H100 nodes, TP 8,
// PP 16, DP 128, interleaved, <= 10 s wall and <= 4 GB RSS on 2 cores).
//
//   trainsim-bench-step [SCENARIO]   (default: scenarios/examples/llama3-405b-16k-h100.ini)

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "bench/process_usage.hpp"
#include "sim/core/large_stack_call.hpp"
#include "sim/cli/scenario_compute_model.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/step/step_simulation.hpp"

namespace {

int run_bench(int argc, char** argv) {
  const std::string path =
      argc > 1 ? argv[1] : std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/examples/llama3-405b-16k-h100.ini";
  try {
    const auto start = std::chrono::steady_clock::now();
    const trainsim::Scenario s = trainsim::load_scenario(path);
    const auto compute = trainsim::cli::scenario_compute_model(s);
    const trainsim::StepResult r = trainsim::simulate_step(s, *compute);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("scenario       %s\n", path.c_str());
    std::printf("gpus           %d\n", r.gpus);
    std::printf("step time      %.4f s simulated\n", r.step_time_s);
    std::printf("wall           %.2f s (simulation %.2f s)\n", wall, r.sim_wall_s);
    std::printf("peak RSS       %.0f MB\n", trainsim::bench::peak_rss_bytes() / 1e6);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trainsim-bench-step: %s\n", e.what());
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
