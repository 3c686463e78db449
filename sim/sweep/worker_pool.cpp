#include "sim/sweep/worker_pool.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>

#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/stop_signals.hpp"
#include "sim/sweep/read_file.hpp"

namespace trainsim::sweep {

namespace {

PointResult evaluate_caught(const SweepPoint& point, const PointEvaluator& evaluate) {
  PointResult r;
  try {
    r = evaluate(point);
  } catch (const InputError& e) {
    r = PointResult{};
    r.status = PointStatus::skipped;
    r.reason = e.what();
  } catch (const std::exception& e) {
    r = PointResult{};
    r.status = PointStatus::failed;
    r.reason = e.what();
  }
  r.index = point.index;
  r.fingerprint = point.fingerprint;
  return r;
}

[[noreturn]] void run_child(const SweepPoint& point, const PointEvaluator& evaluate, const std::string& points_dir) {
  int code = 0;
  try {
    write_file_atomically(point_file_path(points_dir, point.index),
                          point_result_json(evaluate_caught(point, evaluate)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trainsim: point %d: %s\n", point.index, e.what());
    code = 1;
  }
  std::fflush(nullptr);
  ::_exit(code);
}

std::string death_reason(int status) {
  if (WIFSIGNALED(status))
    return "the simulation process was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "the simulation process exited with status " + std::to_string(WEXITSTATUS(status)) +
         " without writing its point";
}

// The point file the child wrote, or a failed result (written too) if it wrote none.
PointResult collect(const SweepPoint& point, int status, const std::string& points_dir) {
  const std::string path = point_file_path(points_dir, point.index);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    const auto r = parse_point_result(read_file_or_empty(path));
    if (r && r->fingerprint == point.fingerprint) return *r;
  }
  PointResult failed;
  failed.index = point.index;
  failed.fingerprint = point.fingerprint;
  failed.status = PointStatus::failed;
  failed.reason = death_reason(status);
  write_file_atomically(path, point_result_json(failed));
  return failed;
}

// Stops the running children: SIGTERM (they take its default action, restore_in_child;
// SIGCONT so that one stopped by Ctrl-Z takes it too), then waits for each. Their points stay
// pending: nothing is written for them.
void stop_children(const std::map<pid_t, size_t>& running) {
  for (const auto& [pid, position] : running) {
    ::kill(pid, SIGTERM);
    ::kill(pid, SIGCONT);
  }
  for (const auto& [pid, position] : running) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace

PoolEnd run_in_children(const std::vector<SweepPoint>& points, int jobs, const std::string& points_dir,
                        const PointEvaluator& evaluate, const std::function<void(const PointResult&)>& on_done,
                        const std::function<StartGate(const SweepPoint&)>& gate) {
  const StopWaiter signals;
  std::map<pid_t, size_t> running;  // child -> position in points
  PoolEnd end;
  const auto stop = [&](int signal) {
    stop_children(running);
    end.stop_signal = signal;
    for (const auto& [pid, position] : running) end.stopped_points.push_back(points[position].index);
  };
  size_t next = 0;
  bool stopped = false;
  try {
    while ((next < points.size() && !stopped) || !running.empty()) {
      while (!stopped && next < points.size() && static_cast<int>(running.size()) < std::max(1, jobs)) {
        const StartGate g = gate ? gate(points[next]) : StartGate::start;
        if (g == StartGate::stop) stopped = true;
        if (g == StartGate::stop || (g == StartGate::wait && !running.empty())) break;
        std::fflush(nullptr);  // the child must not write the parent's buffered output again
        const pid_t parent = ::getpid();
        const pid_t pid = ::fork();
        if (pid < 0) throw Error(std::string("sweep: fork: ") + std::strerror(errno));
        if (pid == 0) {
          signals.restore_in_child();
          end_with_parent(parent);
          run_child(points[next], evaluate, points_dir);
        }
        running[pid] = next++;
      }
      if (running.empty()) continue;  // stopped: nothing left to wait for
      // Every finished child, then (none finished) the next signal: SIGCHLD or a stop.
      int status = 0;
      const pid_t pid = ::waitpid(-1, &status, WNOHANG);
      if (pid < 0 && errno != EINTR) throw Error(std::string("sweep: waitpid: ") + std::strerror(errno));
      if (pid <= 0) {
        if (const int signal = signals.wait(); signal != SIGCHLD) {
          stop(signal);
          return end;
        }
        continue;
      }
      const auto it = running.find(pid);
      if (it == running.end()) continue;  // not one of ours
      const SweepPoint& point = points[it->second];
      running.erase(it);
      on_done(collect(point, status, points_dir));
    }
  } catch (...) {
    stop_children(running);  // no child outlives the pool
    throw;
  }
  // A stop that came while the last points were collected: nothing runs any more.
  if (const auto signal = signals.pending_stop()) end.stop_signal = *signal;
  return end;
}

}  // namespace trainsim::sweep
