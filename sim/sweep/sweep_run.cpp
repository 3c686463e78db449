#include "sim/sweep/sweep_run.hpp"

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/progress_line.hpp"
#include "sim/core/stop_signals.hpp"
#include "sim/sweep/output_folder.hpp"
#include "sim/sweep/read_file.hpp"
#include "sim/sweep/results_table.hpp"
#include "sim/sweep/worker_pool.hpp"

namespace trainsim::sweep {

namespace fs = std::filesystem;

namespace {

std::string points_dir(const std::string& out_dir) {
  return out_dir + "/points";
}
std::string manifest_path(const std::string& out_dir) {
  return out_dir + "/sweep-points.json";
}

// Temporary files of writers that were killed: never renamed, never complete. Only trainsim's
// own (is_temporary_name: its prefix, never a user's `*.tmp`), and of those only the ones
// `mine` accepts: other shards may be writing theirs into the same folder right now. A
// temporary whose writer still runs on this host (another sweep into the same folder) stays.
void remove_temporaries(const std::string& dir, const std::function<bool(const std::string&)>& mine) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (is_temporary_name(name) && mine(name) && !temporary_writer_running(name)) fs::remove(entry.path(), ec);
  }
}

PointResult loaded_or_pending(const SweepPoint& p, const std::string& dir) {
  const auto r = parse_point_result(read_file_or_empty(point_file_path(dir, p.index)));
  if (r && r->index == p.index && r->fingerprint == p.fingerprint) return *r;
  PointResult pending;
  pending.index = p.index;
  pending.fingerprint = p.fingerprint;
  return pending;
}

SweepTally count(const SweepPlan& plan, const std::vector<PointResult>& results) {
  SweepTally t;
  t.points = static_cast<int>(plan.points.size());
  for (const PointResult& r : results) {
    t.ok += r.status == PointStatus::ok;
    t.does_not_fit += r.status == PointStatus::does_not_fit;
    t.skipped += r.status == PointStatus::skipped;
    t.failed += r.status == PointStatus::failed;
    t.pending += r.status == PointStatus::pending;
  }
  return t;
}

void write_tables(const std::string& out_dir, const SweepPlan& plan, const std::vector<PointResult>& results) {
  write_file_atomically(out_dir + "/results.csv", results_csv(plan, results));
  write_results_h5(out_dir + "/results.h5", plan, results);
}

// The files a sweep's points are read from: the sweep file and each point's scenario, once each.
std::vector<std::string> plan_inputs(const SweepPlan& plan) {
  std::vector<std::string> inputs = {plan.source};
  for (const SweepPoint& p : plan.points)
    if (inputs.back() != p.scenario_path) inputs.push_back(p.scenario_path);
  return inputs;
}

}  // namespace

void report_progress_on_stderr(SweepRunOptions& options, const std::string& label) {
  // When stderr is not a terminal, a progress line at most this often (and at the end).
  constexpr std::chrono::seconds k_log_interval{5};
  options.progress_label = label;
  options.progress = terminal_stderr();
  options.progress_log_every.reset();
  if (options.progress == nullptr) {
    options.progress = &std::cerr;  // a log: whole lines, now and then
    options.progress_log_every = k_log_interval;
  }
}

std::vector<PointResult> load_results(const SweepPlan& plan, const std::string& out_dir) {
  std::vector<PointResult> results;
  for (const SweepPoint& p : plan.points) results.push_back(loaded_or_pending(p, points_dir(out_dir)));
  return results;
}

namespace {

// "the plan", "the batch" or "the sweep FILE", for a plan's source.
std::string source_text(const std::string& source) {
  return source == "plan" || source == "batch" ? "a " + source : "the sweep " + source;
}

// Refuses a folder holding another command's results, or another sweep file's: its tables and
// manifest would be replaced and its point files written over by index (`plan --out X` into a
// sweep's folder X replaced the sweep's results.csv, exit 0). The same sweep again resumes it,
// as does a sweep named another way (a relative and an absolute path: the Slurm tasks); only
// two existing files that are not one count as two sweeps.
void require_same_source(const SweepPlan& plan, const std::string& out_dir, const std::string& option) {
  const std::optional<std::string> named = manifest_source(manifest_path(out_dir));
  if (!named) return;  // none, or a damaged manifest: rewritten, as before
  const std::string& earlier = *named;
  const auto is_command = [](const std::string& s) { return s == "plan" || s == "batch"; };
  if (earlier == plan.source) return;
  if (!is_command(earlier) && !is_command(plan.source)) {
    std::error_code ec;
    const bool same = fs::equivalent(earlier, plan.source, ec);
    if (same || ec) return;
  }
  throw InputError("", option, out_dir,
                   "holds the results of " + source_text(earlier) + ", which this " +
                       (is_command(plan.source) ? plan.source : std::string("sweep")) +
                       " would replace: give another folder, or remove this one first");
}

}  // namespace

void prepare_sweep_folder(const SweepPlan& plan, const std::string& out_dir, const std::string& command,
                          const std::string& option) {
  prepare_output_folder(out_dir, command, option, fs::path(manifest_path(out_dir)).filename().string());
  require_same_source(plan, out_dir, option);
  const std::vector<std::string> inputs = plan_inputs(plan);
  for (const std::string& output : {manifest_path(out_dir), out_dir + "/results.csv", out_dir + "/results.h5"})
    check_output_path(output, option, inputs);
  // The point files and traces an earlier run left are written over too (a rename, following a
  // symbolic link): one that is a link to an input would replace it with a point's result.
  // By device and inode (a stat each: a folder may hold a million points).
  std::vector<std::pair<std::pair<dev_t, ino_t>, std::string>> read;
  for (const std::string& input : inputs)
    if (struct stat st {}; ::stat(input.c_str(), &st) == 0) read.push_back({{st.st_dev, st.st_ino}, input});
  std::error_code ec;
  for (const std::string& dir : {points_dir(out_dir), out_dir + "/traces"})
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      struct stat st {};
      if (::stat(e.path().c_str(), &st) != 0) continue;
      for (const auto& [id, input] : read)
        if (id == std::pair{st.st_dev, st.st_ino})
          throw InputError("", option, e.path().string(),
                           "is the input '" + input + "' (links followed): an output never replaces what the command reads");
    }
}

void write_sweep_manifest(const SweepPlan& plan, const std::string& out_dir) {
  write_file_atomically(manifest_path(out_dir), plan_json(plan));
}

SweepTally run_sweep(const SweepPlan& plan, const SweepRunOptions& options, const PointEvaluator& evaluate) {
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  if (ec) throw OutputError(options.out_dir, "cannot create the folder: " + ec.message());
  // The manifest first: it marks the folder as ours (prepare_sweep_folder) for the shards
  // that may start beside this one.
  write_sweep_manifest(plan, options.out_dir);
  fs::create_directories(points_dir(options.out_dir), ec);
  if (ec) throw OutputError(points_dir(options.out_dir), "cannot create the folder: " + ec.message());
  // Point temporaries are named after their point (.trainsim-tmp.000042.json.HOST.PID.tmp);
  // this run owns its share's. The tables are written only by unsharded runs and by --merge.
  const bool sharded = options.shard_count > 1;
  remove_temporaries(points_dir(options.out_dir), [&](const std::string& name) {
    const int index = std::atoi(temporary_target_name(name).c_str());
    return index % options.shard_count == options.shard_index;
  });
  if (!sharded) remove_temporaries(options.out_dir, [](const std::string&) { return true; });

  std::vector<PointResult> results = load_results(plan, options.out_dir);
  std::vector<SweepPoint> todo;
  int in_shard = 0;
  int reused = 0;
  for (size_t i = 0; i < plan.points.size(); ++i) {
    if (plan.points[i].index % options.shard_count != options.shard_index) continue;
    ++in_shard;
    if (results[i].complete())
      ++reused;
    else
      todo.push_back(plan.points[i]);
  }

  int skipped = 0, failed = 0;
  const auto tally = [&] { return ", " + std::to_string(skipped) + " skipped, " + std::to_string(failed) + " failed"; };
  ProgressLine progress(options.progress, options.progress_label, "points", in_shard, reused, tally(),
                        options.progress_log_every);
  auto last_write = std::chrono::steady_clock::now();
  if (!sharded) write_tables(options.out_dir, plan, results);
  std::function<StartGate(const SweepPoint&)> gate;
  // The points a gate stops are never computed: the progress line's total drops to those
  // started, so that a pruned search ends at N/N rather than N/all.
  int started = 0;
  if (options.gate)
    gate = [&](const SweepPoint& p) {
      const StartGate g = options.gate(p, results);
      if (g == StartGate::start) ++started;
      if (g == StartGate::stop) progress.set_total(reused + started, tally());
      return g;
    };
  const PoolEnd end = run_in_children(
      todo, options.jobs, points_dir(options.out_dir), evaluate,
      [&](const PointResult& r) {
        // Points are stored by position; a plan's indices are its positions.
        results[static_cast<size_t>(r.index)] = r;
        skipped += r.status == PointStatus::skipped ? 1 : 0;
        failed += r.status == PointStatus::failed ? 1 : 0;
        progress.item_done(tally());
        const auto now = std::chrono::steady_clock::now();
        if (!sharded && now - last_write >= std::chrono::seconds(1)) {
          // Other shards may have finished points meanwhile: the tables show every point file.
          write_tables(options.out_dir, plan, load_results(plan, options.out_dir));
          last_write = now;
        }
      },
      gate);
  progress.finish();
  // Stopped by a signal: the stopped points' temporary files go (the rest of the folder is
  // every finished point, which a rerun reuses), the tables show what is done.
  for (const int index : end.stopped_points) {
    const auto of_point = [index](const std::string& name) {
      return std::atoi(temporary_target_name(name).c_str()) == index;
    };
    remove_temporaries(points_dir(options.out_dir), of_point);
    remove_temporaries(options.out_dir + "/traces", of_point);
  }
  results = load_results(plan, options.out_dir);
  if (!sharded) write_tables(options.out_dir, plan, results);
  SweepTally t = count(plan, results);
  t.in_shard = in_shard;
  t.reused = reused;
  if (end.stop_signal != 0)
    throw Interrupted(end.stop_signal, options.progress_label + ": stopped by " + signal_name(end.stop_signal) +
                                           " with " + std::to_string(t.ok + t.does_not_fit + t.skipped + t.failed) + " of " +
                                           std::to_string(t.points) + " points done and " +
                                           std::to_string(end.stopped_points.size()) +
                                           " stopped; the same command again computes the rest");
  return t;
}

namespace {

// `out_dir`'s plan, from its manifest; InputError (key `option`) when it has none.
SweepPlan folder_plan(const std::string& out_dir, const std::string& option) {
  const std::string manifest = read_file_or_empty(manifest_path(out_dir));
  if (manifest.empty())
    throw InputError(out_dir, option, out_dir, "no sweep-points.json here: not a sweep's output folder");
  return parse_plan(manifest, manifest_path(out_dir));
}

}  // namespace

SweepTally sweep_tally(const std::string& out_dir) {
  const SweepPlan plan = folder_plan(out_dir, "--status");
  SweepTally t = count(plan, load_results(plan, out_dir));
  t.in_shard = t.points;
  return t;
}

SweepTally merge_sweep(const std::string& out_dir) {
  const SweepPlan plan = folder_plan(out_dir, "--merge");
  // The tables are renamed over what their names lead to: a results.csv linked to the sweep's
  // base scenario was replaced by the table (exit 0). Checked as a sweep checks them, and
  // against the manifest the merge reads.
  std::vector<std::string> inputs = plan_inputs(plan);
  inputs.push_back(manifest_path(out_dir));
  for (const std::string& output : {out_dir + "/results.csv", out_dir + "/results.h5"})
    check_output_path(output, "--merge", inputs);
  remove_temporaries(out_dir, [](const std::string&) { return true; });
  const std::vector<PointResult> results = load_results(plan, out_dir);
  write_tables(out_dir, plan, results);
  SweepTally t = count(plan, results);
  t.in_shard = t.points;
  return t;
}

}  // namespace trainsim::sweep
