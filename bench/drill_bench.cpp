// trainsim-bench-drill: how long `trainsim drill` takes (issue 20: <= 10 s on one core for
// scenarios/default.ini): the whole command, every checkpoint item omitted once, in this
// process, as the CLI runs it.
//
//   trainsim-bench-drill [SCENARIO]   (default: scenarios/default.ini)

#include <chrono>
#include <cstdio>
#include <exception>
#include <sstream>
#include <string>

#include "sim/cli/command.hpp"

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/default.ini";
  try {
    const auto start = std::chrono::steady_clock::now();
    std::ostringstream out;
    const int code =
        trainsim::cli::drill_command().run({path, "--omit", "rng,cursor,optimizer,scheduler,loss_scale"}, out);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (code != 0) return code;
    std::printf("scenario       %s\n", path.c_str());
    std::printf("drill          100 steps: uninterrupted, recovered, 5 omissions, 4 scaling runs (12 trainings)\n");
    std::printf("wall           %.2f s (one thread)\n", wall);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trainsim-bench-drill: %s\n", e.what());
    return 2;
  }
}
