#include "sim/sweep/traced_point_evaluator.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/stop_signals.hpp"
#include "sim/run/run_json.hpp"
#include "sim/step/step_fields.hpp"
#include "sim/sweep/read_file.hpp"
#include "sim/sweep/step_summary.hpp"

namespace trainsim::sweep {

namespace {

struct Finished {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs argv[0] with `argv`, stdout and stderr into files beside the trace (no pipes to
// drain), and waits for it.
Finished run_program(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path) {
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("sweep: fork: ") + std::strerror(errno));
  if (pid == 0) {
    end_with_parent(parent);  // `trainsim run` stops writing its trace when its worker is stopped
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0) ::_exit(127);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  Finished f;
  f.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  f.out = read_file_or_empty(out_path);
  f.err = read_file_or_empty(err_path);
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  return f;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  const std::string prefix = "trainsim: ";
  return line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line;
}

// The point from `trainsim run --json`: the StepResult and RunResult read back through their
// field lists, then flattened as the in-process evaluator does, with the GPU's capacity.
PointResult point_of(const nlohmann::json& j) {
  StepResult step;
  for_each_step_field(step, [&j](const char* group, const char* name, auto& value) {
    (group == nullptr ? j.at(name) : j.at(group).at(name)).get_to(value);
  });
  std::optional<RunResult> run;
  if (j.contains("run")) run = run_from_json_scalars(j.at("run"));
  if (j.contains("variations") && j.at("variations").contains("neighbour")) {
    const nlohmann::json& n = j.at("variations").at("neighbour");
    NeighbourStep beside;
    n.at("gpus").get_to(beside.gpus);
    n.at("steps").get_to(beside.steps);
    n.at("step_time_s").get_to(beside.step_time_s);
    n.at("tokens_per_s_per_gpu").get_to(beside.tokens_per_s_per_gpu);
    step.neighbour = beside;
  }
  return simulated_point(step, run, j.at("capacity_bytes").get<double>());
}

}  // namespace

PointEvaluator traced_point_evaluator(std::string trainsim_exe, std::string out_dir) {
  return [exe = std::move(trainsim_exe), dir = std::move(out_dir)](const SweepPoint& point) {
    char name[32];
    std::snprintf(name, sizeof name, "traces/%06d", point.index);
    const std::string trace = std::string(name) + ".h5";
    std::error_code ec;
    std::filesystem::create_directories(dir + "/traces", ec);
    std::vector<std::string> argv = {exe, "run", point.scenario_path};
    for (const std::string& o : point.overrides) argv.insert(argv.end(), {"--set", o});
    argv.insert(argv.end(), {"--json", "--trace", dir + "/" + trace});
    const Finished f =
        run_program(argv, temporary_name(dir + "/" + name + ".out"), temporary_name(dir + "/" + name + ".err"));
    // Exit 2 is bad input (the point is skipped, as in-process: worker_pool.cpp) or an output
    // that could not be written, the trace on a full disk: that point failed, and is computed
    // again by the next run (it passed as skipped, and the sweep as a success).
    // (OutputError's message, sim/core/error.cpp, and the CLI's line for a standard output
    // that failed, sim/cli/main.cpp, begin "cannot write ".)
    const std::string said = first_line(f.err);
    if (f.exit_code == 2 && !said.empty() && said.rfind("cannot write ", 0) != 0) {
      PointResult r;
      r.status = PointStatus::skipped;
      r.reason = said;
      return r;
    }
    if (f.exit_code != 0)
      throw Error("trainsim run exited with status " + std::to_string(f.exit_code) + ": " + first_line(f.err));
    PointResult r;
    try {
      const nlohmann::json j = nlohmann::json::parse(f.out);
      r = point_of(j);
      r.validation_family = j.at("validation_family").get<std::string>();
      r.caveats = j.at("caveats").get<std::string>();
    } catch (const nlohmann::json::exception& e) {
      throw Error(std::string("trainsim run --json: unexpected output: ") + e.what());
    }
    r.trace = trace;
    return r;
  };
}

}  // namespace trainsim::sweep
