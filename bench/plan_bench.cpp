// trainsim-bench-plan: how much the step-time bound saves `trainsim plan` (sim/sweep/
// pruned_search.hpp): the same search pruned and exhaustive, back to back in one run (these
// machines are shared: compare the ratio, not the seconds), and whether their top K agree.
//
//   trainsim-bench-plan [SCENARIO [--set KEY=VALUE ...]] [--top K] [--jobs N]
//     (default: scenarios/examples/qwen3-30b-a3b-ep.ini with parallel.ep and parallel.zero
//      open, top 10, 2 jobs)

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_main.hpp"
#include "sim/cli/command.hpp"

namespace {

struct Search {
  double wall_s = 0;
  nlohmann::json result;  ///< plan --json
};

Search plan(std::vector<std::string> args, const std::string& out_dir) {
  std::filesystem::remove_all(out_dir);  // no point reused from an earlier run
  args.insert(args.end(), {"--json", "--out", out_dir});
  std::ostringstream out;
  const auto start = std::chrono::steady_clock::now();
  const int code = trainsim::cli::plan_command().run(args, out);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (code != 0) throw std::runtime_error("trainsim plan exited with " + std::to_string(code));
  return {wall, nlohmann::json::parse(out.str())};
}

int run_bench(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  if (args.empty())
    args = {std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/examples/qwen3-30b-a3b-ep.ini", "--set", "parallel.ep=auto",
            "--set", "parallel.zero=auto"};
  size_t top = 10;
  bool jobs = false;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--top") top = std::stoul(args[i + 1]);
    if (args[i] == "--jobs") jobs = true;
  }
  if (!jobs) args.insert(args.end(), {"--jobs", "2"});
  const std::string base = (std::filesystem::temp_directory_path() / "trainsim-bench-plan").string();
  const Search pruned = plan(args, base + "-pruned");
  std::vector<std::string> all = args;
  all.push_back("--exhaustive");
  const Search exhaustive = plan(all, base + "-exhaustive");
  const auto& a = pruned.result["layouts"];
  const auto& b = exhaustive.result["layouts"];
  bool same = a.size() >= std::min(top, b.size());
  for (size_t i = 0; same && i < std::min(top, b.size()); ++i) same = a[i] == b[i];
  std::printf("scenario       %s\n", args.front().c_str());
  std::printf("layouts        %d fit\n", exhaustive.result["simulated"].get<int>());
  std::printf("pruned         %d simulated, %.2f s wall\n", pruned.result["simulated"].get<int>(), pruned.wall_s);
  std::printf("exhaustive     %d simulated, %.2f s wall\n", exhaustive.result["simulated"].get<int>(),
              exhaustive.wall_s);
  std::printf("ratio          %.2f x faster pruned\n", exhaustive.wall_s / pruned.wall_s);
  std::printf("top %-10zu %s\n", top, same ? "the same layouts, numbers and order" : "DIFFERENT");
  return same ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return trainsim::bench::bench_main("trainsim-bench-plan", [&] { return run_bench(argc, argv); });
}
