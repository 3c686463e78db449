// `trainsim batch SCENARIO... [--jobs N] [--out DIR] [--set k=v] [--trace]`: each scenario's step
// simulated in its own process; one result per scenario (DIR/points/NNNNNN.json, the
// summary metrics) and one table of all summaries (DIR/results.csv, DIR/results.h5), the
// same machinery as `trainsim sweep` (sim/sweep/sweep_run.hpp), so a batch resumes too.

#include <algorithm>

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <boost/program_options/variables_map.hpp>
#include <cstdio>
#include <iostream>
#include <ostream>

#include "sim/cli/command_line.hpp"
#include "sim/cli/cli_point_evaluator.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/jobs_option.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/sweep/engine_identity.hpp"
#include "sim/sweep/result_columns.hpp"
#include "sim/sweep/step_summary.hpp"
#include "sim/sweep/sweep_run.hpp"

namespace trainsim::cli {

namespace {

namespace po = boost::program_options;

std::string table(const sweep::SweepPlan& plan, const std::vector<sweep::PointResult>& results) {
  constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-40s %-12s %6s %10s %12s %6s %8s %9s\n", "scenario", "status", "gpus", "step_s",
                "tokens/s", "mfu", "mem GiB", "free GiB");
  out += line;
  for (size_t i = 0; i < plan.points.size(); ++i) {
    const sweep::PointResult& r = results[i];
    const std::string name = plan.points[i].scenario_path;
    // A step that does not fit is simulated all the same: its numbers, and its status says it
    // would not run (free GiB, the headroom, negative).
    if (r.simulated())
      std::snprintf(line, sizeof line, "%-40s %-12s %6.0f %10.4f %12.0f %5.1f%% %8.1f %9.1f\n", name.c_str(),
                    sweep::status_name(r.status).c_str(), sweep::metric_value(r, "gpus"),
                    sweep::metric_value(r, "step_time_s"), sweep::metric_value(r, "tokens_per_s"),
                    100 * sweep::metric_value(r, "mfu"), sweep::metric_value(r, "peak_memory_bytes") / k_gib,
                    sweep::headroom_bytes(r) / k_gib);
    else
      std::snprintf(line, sizeof line, "%-40s %-12s %s\n", name.c_str(), sweep::status_name(r.status).c_str(),
                    r.reason.c_str());
    out += line;
  }
  // Each distinct caveat under the table, with the scenarios it is for (stderr said it without
  // them; a table kept without stderr said none).
  for (const std::string& caveat : sweep::distinct_caveats(results)) {
    std::string names;
    std::size_t n = 0;
    for (size_t i = 0; i < plan.points.size(); ++i)
      if (results[i].caveats == caveat) names += (n++ ? ", " : "") + plan.points[i].scenario_path;
    out += (n == plan.points.size() ? std::string("caveat: ") : "caveat (" + names + "): ") + caveat + "\n";
  }
  return out;
}

}  // namespace

Command batch_command() {
  Command c;
  c.name = "batch";
  c.summary = "simulate several scenarios, in parallel: one result each and one table of all";
  c.run = [summary = c.summary](const std::vector<std::string>& args, std::ostream& out) {
    po::options_description visible("Options");
    visible.add_options()("help,h", "show this help")("jobs,j", po::value<std::string>(),
                                                      "scenarios simulated at once (default: the core count)")(
        "out,o", po::value<std::string>()->default_value("batch-results"), "output folder")(
        "set", po::value<std::vector<std::string>>()->composing(),
        "override a key of every scenario: --set section.key=value (repeatable)")(
        "trace", "also write each scenario's HDF5 trace, DIR/traces/NNNNNN.h5 (trainsim run --trace)");
    po::options_description all;
    all.add(visible).add_options()("scenarios", po::value<std::vector<std::string>>());
    const po::variables_map vm = parse_command_line(args, all, "trainsim batch", "scenarios", -1);
    if (vm.count("help")) {
      out << "usage: trainsim batch SCENARIO... [--jobs N] [--out DIR] [--set section.key=value] [--trace]\n\n"
          << summary << "\n\n"
          << visible;
      return 0;
    }
    if (!vm.count("scenarios"))
      throw InputError("trainsim batch", "", "", "at least one scenario file is required: trainsim batch SCENARIO...");
    sweep::SweepRunOptions options;
    options.jobs = jobs_option(vm, "trainsim batch");
    options.out_dir = vm["out"].as<std::string>();
    sweep::report_progress_on_stderr(options, "batch");
    const std::vector<std::string> overrides =
        vm.count("set") ? vm["set"].as<std::vector<std::string>>() : std::vector<std::string>{};
    check_overrides_given_once(overrides);
    const bool trace = vm.count("trace") > 0;
    sweep::SweepPlan plan = sweep::batch_plan(vm["scenarios"].as<std::vector<std::string>>(), overrides, sweep::engine_identity());
    sweep::prepare_sweep_folder(plan, options.out_dir, "trainsim batch", "--out");
    if (trace) plan = sweep::with_traces(std::move(plan));
    const sweep::SweepTally t = sweep::run_sweep(plan, options, cli_point_evaluator(trace, options.out_dir));
    const std::vector<sweep::PointResult> results = sweep::load_results(plan, options.out_dir);
    for (const std::string& caveat : sweep::distinct_caveats(results))
      std::cerr << "trainsim batch: caveat: " << caveat << "\n";
    out << "trainsim batch: " << t.points << " scenarios (" << t.reused << " already done), " << t.ok << " ok, "
        << (t.does_not_fit > 0 ? std::to_string(t.does_not_fit) + " do not fit in GPU memory, " : "") << t.skipped
        << " invalid, " << t.failed << " failed\n\n"
        << table(plan, results) << "\nresults: " << options.out_dir
        << "/results.csv, " << options.out_dir << "/results.h5, one summary per scenario in " << options.out_dir
        << "/points/\n";
    return t.failed > 0 ? 1 : 0;
  };
  return c;
}

}  // namespace trainsim::cli
