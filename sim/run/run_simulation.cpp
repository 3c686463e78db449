#include "sim/run/run_simulation.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>
#include <cmath>
#include <queue>
#include <random>
#include <vector>

#include "models/checkpoint_size.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/run/checkpoint_interval.hpp"
#include "sim/run/data_cursor.hpp"

namespace trainsim {

namespace {

namespace sg4 = simgrid::s4u;

// Per-node failure times: each node fails after a draw from the failure distribution and is
// replaced at once (spares); the cluster is interrupted by the first node to fail.
class FailureClock {
 public:
  FailureClock(const FailureSpec& spec, int nodes, std::uint64_t seed) : spec_(spec), rng_(seed) {
    for (int n = 0; n < nodes; ++n) next_.push(draw(0.0));
  }
  /// The next interruption, seconds; replaces the failed node.
  double pop() {
    const double t = next_.top();
    next_.pop();
    next_.push(draw(t));
    return t;
  }

 private:
  double draw(double now) {
    if (spec_.distribution == FailureDistribution::weibull) {
      // Weibull(k, lambda) with mean lambda Gamma(1 + 1/k) = the node MTBF.
      const double k = spec_.weibull_shape;
      std::weibull_distribution<double> d(k, spec_.node_mtbf_s / std::tgamma(1.0 + 1.0 / k));
      return now + d(rng_);
    }
    std::exponential_distribution<double> d(1.0 / spec_.node_mtbf_s);
    return now + d(rng_);
  }

  FailureSpec spec_;
  std::mt19937_64 rng_;
  std::priority_queue<double, std::vector<double>, std::greater<>> next_;
};

// What the actors share.
struct RunState {
  RunState(double samples_per_step, bool cursor_saved) : cursor(samples_per_step, cursor_saved) {}

  double step_s = 0;
  double interval_s = 0;  ///< training between checkpoints (0: never)
  double cost_s = 0;
  double read_s = 0;
  long long committed_steps = 0;   ///< steps in the last committed checkpoint
  long long steps_at_segment = 0;  ///< steps done when the current training segment began
  double segment_start_s = -1;     ///< when it began (-1: not training)
  bool writing = false;
  double write_start_s = 0;
  sg4::ActorPtr trainer;
  DataCursor cursor;
  RunResult result;

  /// Steps done so far by the running trainer (whole steps only).
  long long progress(double now) const {
    if (segment_start_s < 0) return steps_at_segment;
    return steps_at_segment + static_cast<long long>(std::floor((now - segment_start_s) / step_s + 1e-9));
  }
};

// Sleeps `seconds`, or until the run ends; true if the run ended first.
bool sleep_within(double seconds, double end_s) {
  const double left = end_s - sg4::Engine::get_clock();
  if (seconds >= left) {
    if (left > 0) sg4::this_actor::sleep_for(left);
    return true;
  }
  sg4::this_actor::sleep_for(seconds);
  return false;
}

// Trains from `start_steps`: `interval` of steps, then a synchronous checkpoint, repeatedly,
// until the run ends (or a failure kills it).
void start_trainer(RunState& st, sg4::Host* host, long long start_steps, double end_s) {
  st.steps_at_segment = start_steps;
  st.trainer = sg4::Actor::create("trainer", host, [&st, end_s] {
    const long long per_segment =
        st.interval_s > 0 ? std::max<long long>(1, std::llround(st.interval_s / st.step_s)) : -1;
    for (;;) {
      st.segment_start_s = sg4::Engine::get_clock();
      const double segment_s = per_segment < 0 ? end_s : static_cast<double>(per_segment) * st.step_s;
      if (sleep_within(segment_s, end_s)) return;  // progress() counts the steps done
      st.steps_at_segment += per_segment;
      st.segment_start_s = -1;
      st.writing = true;
      st.write_start_s = sg4::Engine::get_clock();
      if (sleep_within(st.cost_s, end_s)) {
        st.result.checkpoint_overhead_s += end_s - st.write_start_s;
        return;  // the run ended mid-write: not committed
      }
      // Atomic: the checkpoint counts once every shard and the manifest are written.
      st.writing = false;
      st.committed_steps = st.steps_at_segment;
      ++st.result.checkpoints_written;
      st.result.checkpoint_overhead_s += st.cost_s;
    }
  });
}

}  // namespace

double checkpoint_interval_for(const Scenario& s, double cost_s) {
  if (!s.checkpoint.automatic) return s.checkpoint.interval_s;
  if (s.failures.node_mtbf_s <= 0) return 0;  // nothing to protect against
  return daly_interval_s(cost_s, s.failures.node_mtbf_s / s.cluster.nodes);
}

RunResult simulate_run(const Scenario& s, double step_time_s) {
  const CheckpointSize size = checkpoint_size(s.model, s.training, s.parallel);
  const double samples_per_step = static_cast<double>(s.training.micro_batch) * s.training.grad_accum * s.parallel.dp;
  RunState st(samples_per_step, s.checkpoint.save_data_cursor);
  st.step_s = step_time_s;
  st.cost_s = size.total_bytes / s.checkpoint.write_bandwidth_Bps;
  st.read_s = size.total_bytes / s.checkpoint.read_bandwidth_Bps;
  st.interval_s = checkpoint_interval_for(s, st.cost_s);
  st.result.checkpoint_bytes = size.total_bytes;
  st.result.checkpoint_cost_s = st.cost_s;
  st.result.checkpoint_interval_s = st.interval_s;
  st.result.mtti_s = s.failures.node_mtbf_s > 0 ? s.failures.node_mtbf_s / s.cluster.nodes : 0;

  engine::Simulation simulation;
  sg4::NetZone* zone = sg4::create_full_zone("run");
  sg4::Host* host = zone->create_host("job", 1.0);
  zone->seal();

  start_trainer(st, host, 0, s.run.duration_s);
  if (s.failures.node_mtbf_s > 0) {
    sg4::Actor::create("failures", host, [&st, &s, host] {
      const double end_s = s.run.duration_s;
      FailureClock clock(s.failures, s.cluster.nodes, s.run.seed);
      for (;;) {
        const double when = clock.pop();
        if (when >= end_s) return;
        const double now = sg4::Engine::get_clock();
        if (when > now) sg4::this_actor::sleep_for(when - now);
        ++st.result.failures;
        const double at = sg4::Engine::get_clock();
        if (st.trainer) {
          // Training since the last committed checkpoint is lost (the step in progress
          // included); so is a checkpoint being written.
          const double in_segment = st.segment_start_s >= 0 ? at - st.segment_start_s : 0.0;
          st.result.lost_work_s +=
              static_cast<double>(st.steps_at_segment - st.committed_steps) * st.step_s + in_segment;
          if (st.writing) {
            ++st.result.checkpoints_interrupted;
            st.result.checkpoint_overhead_s += at - st.write_start_s;
          }
          st.trainer->kill();
          st.trainer = nullptr;
          st.cursor.trained_to(st.committed_steps);
          st.cursor.restarted_from(st.committed_steps);
          st.writing = false;
          st.segment_start_s = -1;
          st.steps_at_segment = st.committed_steps;
        }
        // Detect, restart, read the last committed checkpoint. A node that fails meanwhile is
        // the next interruption: it hits the restarted job at once and restarts it again.
        const double downtime = s.failures.detection_s + s.failures.restart_s + st.read_s;
        ++st.result.restarts;
        const double down_from = sg4::Engine::get_clock();
        const bool ended = sleep_within(downtime, end_s);
        st.result.restart_overhead_s += sg4::Engine::get_clock() - down_from;
        if (ended) return;
        start_trainer(st, host, st.committed_steps, end_s);
      }
    });
  }
  simulation.run();  // every actor stops at the run's end
  const double end = s.run.duration_s;
  RunResult& r = st.result;
  r.wall_time_s = end;
  r.steps_completed = st.trainer ? st.progress(end) : st.committed_steps;
  st.cursor.trained_to(r.steps_completed);
  r.samples_duplicated = st.cursor.duplicated();
  r.samples_skipped = st.cursor.skipped();
  r.useful_time_s = static_cast<double>(r.steps_completed) * step_time_s;
  r.effective_training_time_ratio = end > 0 ? r.useful_time_s / end : 0;
  return r;
}

}  // namespace trainsim
