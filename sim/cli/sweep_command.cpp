// `trainsim sweep SWEEP.ini [--jobs N] [--out DIR] [--shard i/n | --slurm] [--trace]`,
// `trainsim sweep --merge DIR` and `trainsim sweep --status DIR`: a base scenario simulated at
// every point of a sweep file (sim/sweep/sweep_spec.hpp), each point in its own process,
// resumable, with one results table (sim/sweep/sweep_run.hpp); or submitted to Slurm
// (sim/sweep/slurm_script.hpp, slurm_submission.hpp).

#include <algorithm>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <boost/program_options/variables_map.hpp>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <iostream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/command_line.hpp"
#include "sim/cli/cli_point_evaluator.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/jobs_option.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/program_failure.hpp"
#include "sim/core/shell_quote.hpp"
#include "sim/scenario/value_parsers.hpp"
#include "sim/sweep/engine_identity.hpp"
#include "sim/sweep/point_preflight.hpp"
#include "sim/sweep/slurm_script.hpp"
#include "sim/sweep/sweep_file_terms.hpp"
#include "sim/sweep/slurm_submission.hpp"
#include "sim/sweep/sweep_status.hpp"
#include "sim/sweep/sweep_run.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace trainsim::cli {

namespace {

namespace po = boost::program_options;

constexpr const char* k_usage =
    "usage: trainsim sweep SWEEP.ini [--jobs N] [--out DIR] [--shard i/n] [--trace] [--yes]\n"
    "       trainsim sweep SWEEP.ini --slurm [--slurm-option=OPTION]... [--shards N] [--jobs N] [--out DIR] "
    "[--trace]\n"
    "       trainsim sweep --merge DIR\n"
    "       trainsim sweep --status DIR\n\n";

// "i/n" with 1 <= i <= n <= 100000 (--shards' limit): the i-th of n shards (points with
// index % n == i - 1). n past an int wrapped: 1/4294967296 divided by 0 (SIGFPE), 1/99999999999
// ran as shard 1/1215752191.
std::pair<int, int> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  const auto i = slash == std::string::npos ? std::nullopt : parse::integer(text.substr(0, slash));
  const auto n = slash == std::string::npos ? std::nullopt : parse::integer(text.substr(slash + 1));
  if (!i || !n || *n < 1 || *i < 1 || *i > *n || *n > 100000)
    throw InputError("trainsim sweep", "--shard", text, "expected i/n with 1 <= i <= n <= 100000");
  return {static_cast<int>(*i) - 1, static_cast<int>(*n)};
}

// Above this many points a sweep asks for --yes before it writes anything: at a second or
// more a point on a few cores (the default scenario's step takes ~0.5 s on one) that is hours
// of computing, and its manifest alone (~280 bytes a point) is megabytes. Issue 19: a
// 640,000-point cross product wrote a 177 MB manifest before computing anything.
constexpr std::size_t k_points_without_yes = 10000;

std::string tally_text(const sweep::SweepTally& t, const std::string& out_dir) {
  std::ostringstream out;
  out << t.points << " points: " << t.ok << " ok, ";
  // Simulated, but not runnable as configured: said only where there are some.
  if (t.does_not_fit > 0) out << t.does_not_fit << " do not fit in GPU memory, ";
  out << t.skipped << " skipped, " << t.failed << " failed, " << t.pending
      << " pending\n"
      << "results: " << out_dir << "/results.csv, " << out_dir << "/results.h5\n";
  return out.str();
}

// The Slurm scripts of `plan` (sim/sweep/slurm_script.hpp), with absolute paths, since the
// tasks run from Slurm's working directory on other nodes. Made before anything is written:
// a path the scripts cannot carry is refused with the folder untouched.
struct SlurmPlan {
  sweep::SlurmScriptOptions options;
  sweep::SlurmScripts scripts;
};

SlurmPlan slurm_plan(const sweep::SweepPlan& plan, const std::string& path,
                                 const sweep::SweepRunOptions& run, const po::variables_map& vm) {
  namespace fs = std::filesystem;
  sweep::SlurmScriptOptions o;
  o.shards = std::max(1, std::min(static_cast<int>(plan.points.size()), 64));
  if (vm.count("shards")) {
    const std::string text = vm["shards"].as<std::string>();
    const auto v = parse::integer(text);
    if (!v || *v < 1 || *v > 100000)
      throw InputError("trainsim sweep", "--shards", text, "expected an integer 1..100000");
    o.shards = static_cast<int>(*v);
  }
  o.jobs = vm.count("jobs") ? run.jobs : 1;
  o.trace = vm.count("trace") > 0;
  if (vm.count("slurm-option")) o.sbatch_options = vm["slurm-option"].as<std::vector<std::string>>();
  std::error_code ec;
  o.trainsim_exe = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw Error("cannot find the trainsim executable: " + ec.message());
  o.sweep_path = fs::absolute(path).lexically_normal().string();
  o.out_dir = fs::absolute(run.out_dir).lexically_normal().string();
  return {o, sweep::slurm_scripts(o)};
}

// Writes DIR/sweep-points.json (so that the array's tasks find the folder theirs),
// DIR/sweep.sbatch and DIR/slurm/merge.sbatch, and submits them (the array, then the merge
// after it); returns what to tell the user. Throws ProgramFailure with sbatch's own message
// when a submission fails or prints no job id (exit 1): `sweep --status DIR` says the same.
std::string write_and_submit(const SlurmPlan& s, const sweep::SweepPlan& plan, const std::string& path) {
  const std::string& dir = s.options.out_dir;
  sweep::write_sweep_manifest(plan, dir);
  std::error_code ec;
  std::filesystem::create_directories(dir + "/slurm", ec);
  if (ec) throw OutputError(dir + "/slurm", "cannot create the folder: " + ec.message());
  write_file_atomically(dir + "/slurm/merge.sbatch", s.scripts.merge_script);
  write_file_atomically(dir + "/sweep.sbatch", s.scripts.array_script);
  const sweep::SlurmSubmission submitted = sweep::submit_slurm_sweep(dir);
  const std::string status = "trainsim sweep --status " + shell_quoted_path(dir);
  if (submitted.array_job.empty()) throw ProgramFailure("sweep --slurm: nothing submitted: " + submitted.error);
  if (submitted.merge_job.empty())
    throw ProgramFailure("sweep --slurm: array job " + submitted.array_job + " submitted, but not its merge: " +
                submitted.error + "; once the array has ended, trainsim sweep --merge " + shell_quoted_path(dir) +
                " writes the tables");
  std::ostringstream out;
  out << "trainsim sweep: " << path << ": " << plan.points.size() << " points in " << s.options.shards
      << " array tasks of " << s.options.jobs << " CPU(s), then a merge\nsubmitted: array job "
      << submitted.array_job << ", then merge job " << submitted.merge_job
      << " once every task has succeeded\nstatus: " << status << "\n";
  return out.str();
}

}  // namespace

Command sweep_command() {
  Command c;
  c.name = "sweep";
  c.summary = "simulate a base scenario over a sweep file's points, in parallel and resumable";
  c.run = [summary = c.summary](const std::vector<std::string>& args, std::ostream& out) {
    po::options_description visible("Options");
    visible.add_options()("help,h", "show this help")("jobs,j", po::value<std::string>(),
                                                      "points simulated at once (default: the core count)")(
        "out,o", po::value<std::string>(), "output folder (default: SWEEP-results, after the sweep file's name)")(
        "shard", po::value<std::string>(), "compute only shard i of n (i/n); then trainsim sweep --merge DIR")(
        "merge", po::value<std::string>(), "rebuild DIR's results.csv and results.h5 from its point files")(
        "slurm", "write DIR/sweep.sbatch, a Slurm job array of the shards, and a final merge; submit both")(
        "slurm-option", po::value<std::vector<std::string>>(),
        "an sbatch option for every script, as --slurm-option=--partition=gpu (repeatable)")(
        "status", po::value<std::string>(), "say how far DIR is: points never run, failed, the Slurm merge")(
        "shards", po::value<std::string>(), "array tasks of --slurm (default: the points, at most 64)")(
        "trace", "also write each point's HDF5 trace, DIR/traces/NNNNNN.h5 (trainsim run --trace)")(
        "yes", "compute a sweep of more than 10,000 points");
    po::options_description all;
    all.add(visible).add_options()("sweep", po::value<std::string>());
    const po::variables_map vm = parse_command_line(args, all, "trainsim sweep", "sweep");
    if (vm.count("help")) {
      out << k_usage << summary << "\n\n" << visible;
      return 0;
    }
    if (vm.count("status")) {
      if (vm.count("sweep") || vm.count("merge"))
        throw InputError("trainsim sweep", "--status", "", "takes a folder alone, not a sweep file or --merge");
      const sweep::SweepStatus st = sweep::sweep_status(vm["status"].as<std::string>());
      out << st.text;
      return st.done ? 0 : 1;
    }
    if (vm.count("merge")) {
      if (vm.count("sweep")) throw InputError("trainsim sweep", "--merge", "", "takes a folder, not a sweep file");
      const std::string dir = vm["merge"].as<std::string>();
      const sweep::SweepTally t = sweep::merge_sweep(dir);
      out << "trainsim sweep --merge: " << tally_text(t, dir);
      return t.failed > 0 ? 1 : 0;
    }
    if (!vm.count("sweep"))
      throw InputError("trainsim sweep", "", "", "a sweep file is required: trainsim sweep SWEEP.ini");
    const std::string path = vm["sweep"].as<std::string>();
    sweep::SweepRunOptions options;
    options.jobs = jobs_option(vm, "trainsim sweep");
    if (vm.count("shard"))
      std::tie(options.shard_index, options.shard_count) = parse_shard(vm["shard"].as<std::string>());
    options.out_dir =
        vm.count("out") ? vm["out"].as<std::string>() : std::filesystem::path(path).stem().string() + "-results";
    sweep::report_progress_on_stderr(options, "sweep");
    const bool trace = vm.count("trace") > 0;
    // Everything is checked before anything is written: the point count, the points, --out.
    const sweep::SweepSpec spec = sweep::read_sweep_file(path);
    // (Beyond 1,000,000 points sweep_plan refuses, --yes or not.)
    if (const std::size_t n = sweep::point_count(spec); n > k_points_without_yes && n <= 1000000 && !vm.count("yes"))
      throw InputError(path, "vary", std::to_string(n) + " points",
                       "more than 10,000 points (hours of computing, a manifest of about " +
                           std::to_string(n * 280 / 1000000 + 1) + " MB): rerun with --yes to compute them");
    sweep::SweepPlan plan = sweep::sweep_plan(spec, sweep::engine_identity());
    sweep::require_a_valid_point(spec, plan);
    std::optional<SlurmPlan> slurm;
    if (vm.count("slurm")) {
      if (vm.count("shard")) throw InputError("trainsim sweep", "--shard", "", "--slurm chooses the shards itself");
      slurm = slurm_plan(plan, path, options, vm);
    } else if (vm.count("slurm-option")) {
      throw InputError("trainsim sweep", "--slurm-option", "", "applies to --slurm only");
    }
    sweep::prepare_sweep_folder(plan, options.out_dir, "trainsim sweep", "--out");
    if (trace) plan = sweep::with_traces(std::move(plan));
    if (slurm) {
      // Named as the tasks name it (absolute): a task resumes the folder of its own sweep file
      // (prepare_sweep_folder), whatever folder Slurm starts it in (--slurm-option=--chdir=...).
      // Set in place: a copy of a million points' plan passed the 4 GiB the limits allow.
      plan.source = slurm->options.sweep_path;
      out << write_and_submit(*slurm, plan, path);
      return 0;
    }
    const sweep::SweepTally t = sweep::run_sweep(
        plan, options, sweep::naming_sweep_file_keys(spec, cli_point_evaluator(trace, options.out_dir)));
    for (const std::string& caveat : sweep::distinct_caveats(sweep::load_results(plan, options.out_dir)))
      std::cerr << "trainsim sweep: caveat: " << caveat << "\n";
    out << "trainsim sweep: " << path;
    if (options.shard_count > 1) out << ", shard " << options.shard_index + 1 << "/" << options.shard_count;
    out << ": " << t.in_shard << " points to compute, " << t.reused << " already done\n"
        << tally_text(t, options.out_dir);
    return t.failed > 0 ? 1 : 0;
  };
  return c;
}

}  // namespace trainsim::cli
