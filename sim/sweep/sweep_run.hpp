#pragma once
// A sweep (or batch) run in an output folder, resumable:
//
//   DIR/sweep-points.json   the manifest: every point of the plan (sweep_plan.hpp)
//   DIR/points/NNNNNN.json  one file per finished point, written atomically by its child
//   DIR/results.csv         the table, rebuilt from the point files in the sweep's order
//   DIR/results.h5          the same table in HDF5
//
// Point files are the only state. A rerun of the same command reuses every point file whose
// fingerprint matches and whose status is ok or skipped; failed, missing or damaged points,
// and temporary files a killed writer left, are redone; so are points a stop signal
// (kill PID, Ctrl-C) stopped. The tables are rebuilt (atomically)
// as points finish, at most once a second, and at the end, always from all point files in
// point order: so they are the same whatever --jobs, the completion order or the sharding.
// Sharded runs (--shard i/n, possibly at once on several nodes sharing the folder) write
// only their points; `trainsim sweep --merge DIR` then writes the tables.

#include <chrono>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "sim/sweep/point_evaluator.hpp"
#include "sim/sweep/point_result.hpp"
#include "sim/sweep/sweep_plan.hpp"
#include "sim/sweep/worker_pool.hpp"

namespace trainsim::sweep {

struct SweepRunOptions {
  std::string out_dir;
  int jobs = 1;         ///< child processes at once, >= 1
  int shard_index = 0;  ///< this run computes points with index % shard_count == shard_index
  int shard_count = 1;
  std::ostream* progress = nullptr;      ///< the progress line's terminal, or nullptr for none
  /// Set when `progress` is a log (a file or a pipe): whole lines, at most one per interval.
  std::optional<std::chrono::duration<double>> progress_log_every;
  std::string progress_label = "sweep";  ///< the command the progress line names
  /// Asked before each point starts, with every point's result so far (pending where not
  /// yet known): points it stops stay pending (trainsim plan's pruning, sim/sweep/pruned_search.hpp).
  std::function<StartGate(const SweepPoint& next, const std::vector<PointResult>& results)> gate;
};

struct SweepTally {
  int points = 0;    ///< in the plan
  int in_shard = 0;  ///< this run's share
  int reused = 0;    ///< of the share, complete before this run
  int ok = 0;        ///< over the whole plan, after this run (other shards' files included)
  int does_not_fit = 0;  ///< simulated, but the peak memory passes the GPU's
  int skipped = 0;
  int failed = 0;
  int pending = 0;
};

/// Progress on stderr, as sweep, batch and plan report it: a line redrawn in place on a
/// terminal; otherwise (a log file, a pipe, CI) a whole line every few seconds and at the end,
/// so that a redirected run shows it is alive and how long it has left.
void report_progress_on_stderr(SweepRunOptions& options, const std::string& label);

/// Checks (and creates) a sweep's, batch's or plan's output folder before anything is
/// simulated: prepare_output_folder with the manifest, sweep-points.json, as the mark of a
/// folder of ours (a new or empty folder, or one an earlier run of ours wrote); and the
/// tables and manifest it will write are none of `plan`'s inputs (its sweep file, its
/// scenarios: check_output_path).
void prepare_sweep_folder(const SweepPlan& plan, const std::string& out_dir, const std::string& command,
                          const std::string& option);

/// Writes `plan`'s manifest into `out_dir`: the first file of a sweep folder, before any point
/// (`--slurm` writes it before its scripts, so that the array's tasks find the folder theirs).
void write_sweep_manifest(const SweepPlan& plan, const std::string& out_dir);

/// Runs `plan` into options.out_dir (created if missing). Throws trainsim::Error if the
/// folder cannot be written or a child cannot be started. A stop signal (SIGINT, SIGTERM,
/// SIGHUP; run_in_children) stops it: the stopped points' temporary files are removed, the
/// tables written from the finished points, and Interrupted thrown (the folder resumes).
SweepTally run_sweep(const SweepPlan& plan, const SweepRunOptions& options, const PointEvaluator& evaluate);

/// Rebuilds results.csv and results.h5 of `out_dir` from its manifest and point files
/// (`trainsim sweep --merge`, after the shards). Throws InputError if `out_dir` has no
/// manifest.
SweepTally merge_sweep(const std::string& out_dir);

/// The tally of `out_dir` from its manifest and point files, writing nothing (`trainsim sweep
/// --status`). Throws InputError if `out_dir` has no manifest.
SweepTally sweep_tally(const std::string& out_dir);

/// The results of `plan` found in `out_dir/points` (pending where none is complete and current).
std::vector<PointResult> load_results(const SweepPlan& plan, const std::string& out_dir);

}  // namespace trainsim::sweep
