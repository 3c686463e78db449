#pragma once
// Runs sweep points in forked child processes, at most `jobs` at a time. SimGrid 3.32 allows
// one engine per process, so every point gets a fresh process (fork, without exec: the child
// already has the parsed plan and the evaluator; no binary path or argument encoding needed).
//
// The child computes the point and writes its point file itself, atomically (a temporary
// name, then rename): the file exists whole or not at all, whatever happens to the parent.
// The parent only waits. If a child dies without writing (a crash, kill -9, out of memory),
// the parent writes a failed point file naming the signal or exit status.

#include <functional>
#include <string>
#include <vector>

#include "sim/sweep/point_evaluator.hpp"

namespace trainsim::sweep {

/// Whether the next point starts now, once a running point has finished, or never (nor any
/// after it).
enum class StartGate { start, wait, stop };

/// How run_in_children ended: stop_signal is 0 when it computed every point (or the gate
/// stopped it), else the stop signal (SIGINT, SIGTERM, SIGHUP) that ended it early.
struct PoolEnd {
  int stop_signal = 0;
  std::vector<int> stopped_points;  ///< indices of the points whose children it stopped
};

/// Computes the points of `points` in children, in order, `jobs` >= 1 at once, writing
/// point_file_path(points_dir, index). Calls `on_done` in this process as each point
/// finishes (in completion order, which varies with jobs and load). `gate` (if set) is asked
/// before each point starts; a wait with no point running starts it. Waits with
/// waitpid(-1): call it from a process with no other children to reap.
///
/// A stop signal (sim/core/stop_signals.hpp) to this process while it runs stops it: the
/// running children get SIGTERM and are waited for, no point starts, on_done is not called
/// again, and it returns the signal and the stopped points (pending: their files are not
/// written; temporary files they left are the caller's to remove). Children also get SIGTERM
/// if the thread that runs this ends (kill -9), and they do not outlive an exception.
/// Throws trainsim::Error if fork fails.
PoolEnd run_in_children(const std::vector<SweepPoint>& points, int jobs, const std::string& points_dir,
                        const PointEvaluator& evaluate, const std::function<void(const PointResult&)>& on_done,
                        const std::function<StartGate(const SweepPoint&)>& gate = {});

}  // namespace trainsim::sweep
