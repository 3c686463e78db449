#include "sim/run/run_simulation.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

#include "sim/core/portable_random.hpp"
#include "sim/core/progress_line.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/run/checkpoint_interval.hpp"
#include "sim/run/data_cursor.hpp"
#include "sim/run/failure_causes.hpp"
#include "sim/run/failure_clock.hpp"
#include "sim/run/job_size.hpp"
#include "sim/run/node_pool.hpp"
#include "sim/run/phase_clock.hpp"
#include "sim/run/run_limits.hpp"

namespace trainsim {

namespace {

namespace sg4 = simgrid::s4u;

double now() {
  return sg4::Engine::get_clock();
}

// A run with a step target and no duration stops here at the latest: 100 years.
constexpr double k_no_time_limit_s = k_max_run_duration_s;

struct Write {
  double start_s = 0;
  long long steps = 0;
};

// Everything the actors share.
struct RunState {
  RunState(const Scenario& scenario, const SizeCostTable& table)
      : s(scenario),
        costs(table),
        end_s(scenario.run.duration_s > 0 ? scenario.run.duration_s : k_no_time_limit_s),
        rng(scenario.run.seed),
        clock(scenario.failures, scenario.failures.mtbf_s > 0 ? scenario.cluster.nodes : 0,
              scenario.failure_units_per_node(), rng),
        causes(scenario.failures.causes),
        pool(scenario.cluster.nodes, scenario.failures.spare_nodes, scenario.failures.repair_s),
        cursor(table.at(scenario.parallel.dp).samples_per_step, table.at(scenario.parallel.dp).step_time_s,
               scenario.checkpoint.save_data_cursor) {}

  const Scenario& s;
  const SizeCostTable& costs;
  double end_s;
  std::mt19937_64 rng;
  FailureClock clock;
  CausePicker causes;
  NodePool pool;
  DataCursor cursor;
  PhaseClock phases;
  sg4::Host* host = nullptr;

  int dp = 0;
  SizeCosts size;              ///< at the job's size; its step time the job's now (a straggler's, while one is in)
  double uniform_step_s = 0;   ///< the step time at this size with no straggler
  long long per_segment = -1;  ///< steps between checkpoints (-1: never)
  long long segment_end = -1;  ///< the step count the training segment under way ends at (-1: none)
  bool resume_segment = false;  ///< train() goes on with a segment a change of speed cut
  int life = 0;                 ///< restarts so far: a straggler found after one is gone
  int stragglers_in = 0;        ///< stragglers in the job, not yet drained
  double phase_since_s = 0;     ///< when the job entered its phase

  long long committed_steps = 0;   ///< steps in the last committed checkpoint
  long long steps_at_segment = 0;  ///< steps done when the current training segment began
  double segment_start_s = 0;      ///< when it began (a straggler's rebase may put it before 0)
  bool in_segment = false;         ///< whether a training segment is under way
  std::optional<Write> sync_write;
  std::optional<Write> async_write;
  sg4::ActorPtr job;
  sg4::ActorPtr writer;
  std::optional<std::size_t> open_interruption;  ///< the record whose downtime is running
  int missing_dp = 0;
  double finished_s = -1;  ///< when run.train_steps were reached (-1: not reached)
  RunResult result;

  /// Whole steps done so far.
  long long progress(double at) const {
    if (!in_segment) return steps_at_segment;
    return steps_at_segment + static_cast<long long>(std::floor((at - segment_start_s) / size.step_time_s + 1e-9));
  }
  /// Training time at `at` in the step not finished yet (0 when not training).
  double partial_step_s(double at) const {
    if (!in_segment) return 0.0;
    return (at - segment_start_s) - static_cast<double>(progress(at) - steps_at_segment) * size.step_time_s;
  }
  /// partial_step_s as work: in the uniform job's seconds (a straggler's steps take longer:
  /// the rest is straggler_slowdown_s).
  double partial_work_s(double at) const { return partial_step_s(at) * (uniform_step_s / size.step_time_s); }
  /// The job enters phase `p` at `at`; training at a straggler's pace is charged its slowdown.
  void enter(Phase p, double at) {
    if (phases.phase() == Phase::training && size.step_time_s > uniform_step_s)
      result.straggler_slowdown_s += (at - phase_since_s) * (1.0 - uniform_step_s / size.step_time_s);
    phases.enter(p, at);
    phase_since_s = at;
  }
  /// Stops training at `at`: whole steps are kept, a partial step is lost.
  void stop_training(double at) {
    if (!in_segment) return;
    result.lost_work_s += partial_work_s(at);
    steps_at_segment = progress(at);
    in_segment = false;
    resume_segment = false;  // a job that stops starts its next segment afresh
  }
  /// The costs at `replicas` data-parallel replicas; nullptr, after stopping the simulation and recording
  /// missing_dp, when that size has not been simulated yet (run_in_processes.cpp adds it).
  const SizeCosts* costs_at(int replicas) {
    const auto found = costs.find(replicas);
    if (found != costs.end()) return &found->second;
    missing_dp = replicas;
    sg4::Actor::kill_all();
    return nullptr;
  }
  void record_checkpoint(const Write& w, double at, bool committed, bool async) {
    // The first k_max_run_records are kept; past them only the counts below grow.
    if (result.checkpoints.size() < k_max_run_records)
      result.checkpoints.push_back({w.start_s, at, w.steps, size.checkpoint.bytes, committed, async});
    if (committed) {
      committed_steps = std::max(committed_steps, w.steps);
      ++result.checkpoints_written;
    } else {
      ++result.checkpoints_interrupted;
    }
  }
  std::optional<ProgressLine> progress_line;
  std::chrono::steady_clock::time_point last_draw;

  /// Redraws the progress line (the share of the run simulated), at most 4 times a second of
  /// wall time. Called where the actors wake anyway: it adds no event, so results do not depend on it.
  void report_progress() {
    if (!progress_line) return;
    const auto wall = std::chrono::steady_clock::now();
    if (wall - last_draw < std::chrono::milliseconds(250)) return;
    last_draw = wall;
    double share = now() / end_s;
    if (s.run.train_steps > 0)
      share = std::max(share, static_cast<double>(progress(now())) / static_cast<double>(s.run.train_steps));
    progress_line->advance_to(static_cast<int>(std::clamp(share, 0.0, 1.0) * 100));
  }
  /// Opens `r`: its downtime runs until training resumes. Kept if fewer than
  /// k_max_run_records are (then the downtime of one not kept is not recorded either).
  void open(const InterruptionRecord& r) {
    open_interruption.reset();
    if (result.interruptions.size() >= k_max_run_records) return;
    result.interruptions.push_back(r);
    open_interruption = result.interruptions.size() - 1;
  }
};

// Sleeps `seconds`, or until the run ends; true if the run ended first.
bool sleep_within(double seconds, double end_s) {
  const double left = end_s - now();
  if (seconds >= left) {
    if (left > 0) sg4::this_actor::sleep_for(left);
    return true;
  }
  sg4::this_actor::sleep_for(seconds);
  return false;
}

// Moves the job to `dp` replicas (the costs table must hold it). False if it does not.
bool resize(RunState& st, int dp) {
  const SizeCosts* to = st.costs_at(dp);
  if (to == nullptr) return false;
  if (st.dp != 0 && dp != st.dp) {
    ++st.result.resizes;
    st.cursor.trained_to(st.steps_at_segment);  // the history so far, at the old size
    // A per-rank sampler resumes every rank at its own offset: the global position scales
    // with the replicas (PyTorch's DistributedSampler reads rank + dp * i).
    const double scale = st.s.checkpoint.sampler == DataSampler::per_rank ? static_cast<double>(dp) / st.dp : 1.0;
    st.cursor.resized(to->samples_per_step, to->step_time_s, scale);
  }
  st.dp = dp;
  st.size = *to;  // a restart's health checks leave no straggler in the job
  st.uniform_step_s = to->step_time_s;
  st.stragglers_in = 0;
  ++st.life;
  const double interval = checkpoint_interval_for(st.s, *to, nodes_for_dp(st.s, dp));
  // Whole steps nearest the interval; an automatic asynchronous interval is a floor (no
  // checkpoint before the last one's write is done), so it is rounded up.
  const bool floor_interval = st.s.checkpoint.automatic && st.s.checkpoint.mode == CheckpointMode::async;
  st.per_segment = st.s.checkpoint.interval_steps > 0
                       ? st.s.checkpoint.interval_steps
                       : checkpoint_steps(interval, st.size.step_time_s, floor_interval);
  st.clock.use(st.s.failures.mtbf_s > 0 ? nodes_for_dp(st.s, dp) : 0, now());
  st.result.min_dp = st.result.min_dp == 0 ? dp : std::min(st.result.min_dp, dp);
  st.result.global_batch_min = st.result.global_batch_min == 0
                                   ? st.size.samples_per_step
                                   : std::min(st.result.global_batch_min, st.size.samples_per_step);
  st.result.global_batch_max = std::max(st.result.global_batch_max, st.size.samples_per_step);
  return true;
}

// A synchronous checkpoint of the steps done; false if the run ended first.
bool write_sync(RunState& st) {
  st.enter(Phase::checkpoint, now());
  st.sync_write = Write{now(), st.steps_at_segment};
  if (sleep_within(st.size.checkpoint.write_s, st.end_s)) return false;
  st.record_checkpoint(*st.sync_write, now(), true, false);
  st.sync_write.reset();
  return true;
}

// Waits for the async write in flight, if any; false if the run ended first.
bool join_writer(RunState& st) {
  if (!st.async_write) return true;
  st.enter(Phase::checkpoint, now());
  const double left = st.async_write->start_s + st.size.checkpoint.write_s - now();
  return !sleep_within(std::max(0.0, left), st.end_s) || !st.async_write;
}

// An asynchronous checkpoint: the snapshot stalls training, the write goes on behind it.
bool write_async(RunState& st) {
  if (!join_writer(st)) return false;
  st.enter(Phase::checkpoint, now());
  if (sleep_within(st.size.checkpoint.snapshot_s, st.end_s)) return false;
  st.async_write = Write{now(), st.steps_at_segment};
  st.writer = sg4::Actor::create("writer", st.host, [&st] {
    if (sleep_within(st.size.checkpoint.write_s, st.end_s)) return;
    st.record_checkpoint(*st.async_write, now(), true, true);
    st.async_write.reset();
    st.writer = nullptr;
  });
  return true;
}

void start_job(RunState& st, Phase first, double first_s);

// The open interruption's downtime ends at `at`, training resuming with `dp` replicas (0: it
// did not resume: another interruption, or the run's end, came first).
void close_interruption(RunState& st, double at, int dp) {
  if (!st.open_interruption) return;
  InterruptionRecord& r = st.result.interruptions[*st.open_interruption];
  r.downtime_s = at - r.time_s;
  r.dp_after = dp;
  st.open_interruption.reset();
}

// Whether to restart a shrunk job at `dp` replicas now. auto: when the samples per second
// gained, over the expected time to the next interruption (the MTTI, or what is left of the
// run), outweigh the restart and the checkpoint read at that size. A size not simulated yet
// stops the simulation (missing_dp) and returns false.
bool should_grow(RunState& st, int dp) {
  if (st.s.elastic.grow != GrowPolicy::automatic) return st.s.elastic.grow == GrowPolicy::always;
  const SizeCosts* to = st.costs_at(dp);
  if (to == nullptr) return false;
  const double gain = (to->samples_per_step / to->step_time_s) / (st.size.samples_per_step / st.size.step_time_s) - 1;
  const double left_s = st.end_s - now();
  const double horizon_s = st.result.mtti_s > 0 ? std::min(st.result.mtti_s, left_s) : left_s;
  return gain * horizon_s > st.s.failures.restart_s + to->checkpoint.read_s;
}

// Trains until the run ends: a segment of steps, a checkpoint, and so on. After a commit, a
// shrunk job grows back if repaired nodes allow it.
void train(RunState& st) {
  const long long target = st.s.run.train_steps;
  for (;;) {
    st.report_progress();
    st.enter(Phase::training, now());
    long long steps = 0;
    double segment_s = 0;
    if (st.resume_segment) {  // the segment goes on at the new speed from its rebased start
      st.resume_segment = false;
      steps = st.segment_end < 0 ? -1 : st.segment_end - st.steps_at_segment;
      segment_s = steps < 0
                      ? st.end_s
                      : std::max(0.0, static_cast<double>(steps) * st.size.step_time_s - (now() - st.segment_start_s));
    } else {
      st.segment_start_s = now();
      st.in_segment = true;
      steps = st.per_segment;  // -1: no checkpoints
      if (target > 0) steps = steps < 0 ? target - st.steps_at_segment : std::min(steps, target - st.steps_at_segment);
      st.segment_end = steps < 0 ? -1 : st.steps_at_segment + steps;
      segment_s = steps < 0 ? st.end_s : static_cast<double>(steps) * st.size.step_time_s;
    }
    if (sleep_within(segment_s, st.end_s)) return;  // progress() counts the steps done
    st.steps_at_segment += steps;
    st.in_segment = false;
    if (target > 0 && st.steps_at_segment >= target) {
      // Trained: the run ends here (a checkpoint in flight is not waited for).
      st.finished_s = now();
      sg4::Actor::kill_all();
      return;
    }
    const bool ok = st.s.checkpoint.mode == CheckpointMode::sync ? write_sync(st) : write_async(st);
    if (!ok) return;
    const int grown = largest_dp_on(st.s, st.pool.available(now()));
    if (grown > st.dp) {
      const bool grow = should_grow(st, grown);
      if (st.missing_dp > 0) return;  // the simulation stopped for a size not simulated yet
      if (grow) {
        // Elastic grow: a planned restart from the checkpoint just committed.
        if (!join_writer(st)) return;
        ++st.result.restarts;
        start_job(st, Phase::down, 0.0);
        return;
      }
    }
  }
}

// The job's next life: `first` for `first_s` (detection, maintenance downtime...), then
// waiting for nodes if too few are left, the restart and checkpoint read at its size, then
// training. Waiting keeps the scenario's size; shrinking takes the largest that fits.
void start_job(RunState& st, Phase first, double first_s) {
  st.job = sg4::Actor::create("job", st.host, [&st, first, first_s] {
    st.enter(first, now());
    if (sleep_within(first_s, st.end_s)) return;
    int dp = 0;
    for (;;) {
      const int available = st.pool.available(now());
      dp = st.s.elastic.policy == ElasticPolicy::shrink ? largest_dp_on(st.s, available) : st.s.parallel.dp;
      if (dp > 0 && nodes_for_dp(st.s, dp) <= available) break;
      st.enter(Phase::waiting, now());
      if (sleep_within(std::max(0.0, st.pool.next_return() - now()), st.end_s)) return;
    }
    st.enter(Phase::down, now());
    const SizeCosts* to = st.costs_at(dp);
    if (to == nullptr) return;
    if (sleep_within(st.s.failures.restart_s + to->checkpoint.read_s, st.end_s)) return;
    if (!resize(st, dp)) return;
    close_interruption(st, now(), dp);
    train(st);
  });
}

// Kills the job (and a checkpoint being written) at `at`; the work since the last committed
// checkpoint is lost and the history rolls back to it.
void interrupt(RunState& st, double at, bool planned, int node, const std::string& cause) {
  const long long done = st.progress(at);
  const bool had_work = st.phases.phase() == Phase::training || st.phases.phase() == Phase::checkpoint;
  if (st.sync_write) st.record_checkpoint(*st.sync_write, at, false, false);
  if (st.async_write) st.record_checkpoint(*st.async_write, at, false, true);
  st.sync_write.reset();
  st.async_write.reset();
  const double lost =
      had_work ? static_cast<double>(done - st.committed_steps) * st.uniform_step_s + st.partial_work_s(at) : 0.0;
  st.result.lost_work_s += lost;
  for (sg4::ActorPtr* a : {&st.job, &st.writer})
    if (*a) {
      (*a)->kill();
      *a = nullptr;
    }
  st.cursor.trained_to(done);
  st.cursor.restarted_from(st.committed_steps);
  st.in_segment = false;
  st.resume_segment = false;
  st.steps_at_segment = st.committed_steps;
  close_interruption(st, at, 0);  // a restart cut short by this one
  st.open({at, node, cause, planned, lost, 0, 0});
}

void failures_actor(RunState& st) {
  for (;;) {
    const NodeFailure f = st.clock.next();
    if (f.time_s >= st.end_s) return;
    if (f.time_s > now()) sg4::this_actor::sleep_for(f.time_s - now());
    st.report_progress();
    const FailureCause& cause = st.causes.pick(st.rng);
    st.clock.renew(f.unit, now());
    ++st.result.failures;
    ++st.result.restarts;
    interrupt(st, now(), false, f.node, cause.component);
    if (cause.needs_repair) st.pool.to_repair(now());
    // Detect, then restart (waiting for a node first if none is free) and read the last
    // committed checkpoint. A node that fails meanwhile interrupts the restart itself.
    start_job(st, Phase::down, st.s.failures.detection_s);
  }
}

// A planned stop now, while training: the job stops at a step boundary (no work is lost but
// the partial step), an interruption record of `cause` opens (its downtime runs until training
// resumes, the checkpoint included), the job checkpoints what it trained, then starts again
// after `first` for `first_s`.
void planned_stop(RunState& st, const char* cause, Phase first, double first_s) {
  ++st.result.restarts;
  st.job->kill();
  st.job = nullptr;
  const double lost_before = st.result.lost_work_s;
  st.stop_training(now());
  st.open({now(), -1, cause, true, st.result.lost_work_s - lost_before, 0, 0});
  st.job = sg4::Actor::create(cause, st.host, [&st, first, first_s] {
    if (!join_writer(st)) return;
    if (st.steps_at_segment > st.committed_steps && !write_sync(st)) return;
    start_job(st, first, first_s);
  });
}

// Planned maintenance: a planned stop for the downtime, then the restart. Skipped while the
// job is down anyway.
void maintenance_actor(RunState& st) {
  const double every = st.s.failures.maintenance_interval_s;
  for (double at = every; at < st.end_s; at += every) {
    sg4::this_actor::sleep_for(at - now());
    // Only while training: a stop during a checkpoint or a restart is left to the next window.
    if (st.phases.phase() != Phase::training) continue;
    ++st.result.planned_interruptions;
    planned_stop(st, "planned maintenance", Phase::maintenance, st.s.failures.maintenance_downtime_s);
  }
}

// Keeps the stragglers' draws apart from the failures' (both seeded by run.seed).
constexpr std::uint64_t k_straggler_stream = 0x5772'4a66'0000'0002ULL;
// A straggler found while the job checkpoints or restarts is drained once it trains again:
// looked for this often (a stated granularity).
constexpr double k_drain_poll_s = 60;

// The job's steps take `step_s` from now on. While training, the segment under way goes on
// at the new speed from the step it is in (its done part kept as a share of a step).
void change_speed(RunState& st, double step_s) {
  if (st.phases.phase() != Phase::training || !st.in_segment || !st.job) {
    st.size.step_time_s = step_s;  // the next segment trains at it
    return;
  }
  st.enter(Phase::training, now());  // the time so far at the old speed
  const long long done = st.progress(now());
  const double share = st.partial_step_s(now()) / st.size.step_time_s;
  st.job->kill();
  st.steps_at_segment = done;
  st.size.step_time_s = step_s;
  st.segment_start_s = now() - share * step_s;
  st.resume_segment = true;
  st.job = sg4::Actor::create("job", st.host, [&st] { train(st); });
}

// A straggler found: the job stops at a step boundary, checkpoints what it trained, and
// restarts on a spare node while the slow one goes to repair (a planned restart: no work is
// lost but the partial step). Waits for training if the job is checkpointing.
void drain(RunState& st, int life) {
  while (st.phases.phase() != Phase::training || !st.in_segment) {
    if (sleep_within(k_drain_poll_s, st.end_s) || st.life != life) return;
  }
  ++st.result.straggler_drains;
  st.pool.to_repair(now());
  planned_stop(st, "straggler drained", Phase::down, 0.0);
}

// Stragglers (variations.straggler_mtbf): each GPU of the job turns slow at that mean time,
// while the job trains (a GPU throttles under load); the job's steps then take the step time
// with one slow GPU (more at once cost about as much: a slow GPU paces its replica, and the
// replicas wait for the slowest), until each is found and drained.
void stragglers_actor(RunState& st) {
  std::mt19937_64 rng(st.s.run.seed ^ k_straggler_stream);
  for (;;) {
    const double gpus = static_cast<double>(nodes_for_dp(st.s, st.dp)) * st.s.cluster.gpus_per_node;
    const double at = now() + portable::exponential(rng, gpus / st.s.variations.straggler_mtbf_s);
    if (at >= st.end_s) return;
    sg4::this_actor::sleep_for(at - now());
    if (st.phases.phase() != Phase::training || !st.in_segment) continue;
    ++st.result.stragglers;
    if (st.stragglers_in++ == 0) change_speed(st, st.size.straggler_step_time_s);
    const int life = st.life;
    sg4::Actor::create("straggler", st.host, [&st, life] {
      if (sleep_within(st.s.variations.straggler_detection_s, st.end_s) || st.life != life) return;
      drain(st, life);
    });
  }
}

}  // namespace

double checkpoint_interval_for(const Scenario& s, const SizeCosts& c, int nodes) {
  if (s.checkpoint.interval_steps > 0) return static_cast<double>(s.checkpoint.interval_steps) * c.step_time_s;
  if (!s.checkpoint.automatic) return s.checkpoint.interval_s;
  if (s.failures.mtbf_s <= 0) return 0;  // nothing to protect against
  const bool async = s.checkpoint.mode == CheckpointMode::async;
  const double stall_s = async ? c.checkpoint.snapshot_s : c.checkpoint.write_s;
  const double daly = daly_interval_s(stall_s, s.mtti_s(nodes));
  return async ? std::max(daly, c.checkpoint.write_s) : daly;
}

RunOutcome simulate_run(const Scenario& s, const SizeCostTable& costs, std::ostream* progress) {
  RunState st(s, costs);
  if (progress) st.progress_line.emplace(progress, "run simulation", "%", 100);
  const SizeCosts& full = costs.at(s.parallel.dp);
  st.result.checkpoint_bytes = full.checkpoint.bytes;
  st.result.checkpoint_cost_s = full.checkpoint.write_s;
  st.result.checkpoint_interval_s = checkpoint_interval_for(s, full, s.cluster.nodes);
  st.result.mtti_s = s.mtti_s(s.cluster.nodes);

  engine::Simulation simulation;
  sg4::NetZone* zone = sg4::create_full_zone("run");
  st.host = zone->create_host("job", 1.0);
  zone->seal();

  resize(st, s.parallel.dp);
  st.job = sg4::Actor::create("job", st.host, [&st] { train(st); });
  if (s.failures.mtbf_s > 0) sg4::Actor::create("failures", st.host, [&st] { failures_actor(st); });
  if (s.failures.maintenance_interval_s > 0)
    sg4::Actor::create("maintenance", st.host, [&st] { maintenance_actor(st); });
  if (s.variations.straggler_mtbf_s > 0) sg4::Actor::create("stragglers", st.host, [&st] { stragglers_actor(st); });
  simulation.run();  // every actor stops at the run's end
  if (st.progress_line) {
    st.progress_line->advance_to(100);
    st.progress_line->finish();
  }
  if (st.missing_dp > 0) return {std::nullopt, st.missing_dp};

  const double end = st.finished_s >= 0 ? st.finished_s : st.end_s;
  st.enter(Phase::training, end);  // closes the last phase
  close_interruption(st, end, 0);
  RunResult& r = st.result;
  r.wall_time_s = end;
  r.steps_completed = st.progress(end);
  st.cursor.trained_to(r.steps_completed);
  r.useful_time_s = st.cursor.useful_time_s();
  r.samples_trained = st.cursor.samples_trained();
  r.samples_duplicated = st.cursor.duplicated();
  r.samples_skipped = st.cursor.skipped();
  r.effective_training_time_ratio = end > 0 ? r.useful_time_s / end : 0;
  r.checkpoint_overhead_s = st.phases.total(Phase::checkpoint);
  r.restart_overhead_s = st.phases.total(Phase::down) + st.phases.total(Phase::maintenance);
  r.waiting_for_nodes_s = st.phases.total(Phase::waiting);
  r.unfinished_step_s = st.partial_work_s(end);
  return {r, 0};
}

}  // namespace trainsim
