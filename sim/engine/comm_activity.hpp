#pragma once
// A communication in flight on the simulated platform (a collective's plan, or a reference
// per-message run), driven by a SimGrid actor: a handle to its timing. Several may run at once;
// they then share links through SimGrid's network model. Waiting for one wakes on a
// semaphore (timer_wait.hpp), not by joining its actor: a join is a sleep in the solver.

#include <simgrid/forward.h>

#include <memory>
#include <vector>

namespace trainsim::engine {

/// Start and end of a communication, in simulated seconds (end < 0 until it completes),
/// and the actors waiting for its end.
struct CommTiming {
  double start_s = 0;
  double end_s = -1;
  /// Released at the end (finish): each waiting actor's (CommActivity::wait, wait_for).
  mutable std::vector<simgrid::s4u::SemaphorePtr> waiters;

  /// Called by the communication's actor as it completes, at `end_s`: wakes the waiters.
  void finish(double end);
};

class CommActivity {
 public:
  explicit CommActivity(std::shared_ptr<const CommTiming> timing);
  ~CommActivity();
  CommActivity(const CommActivity&);
  CommActivity& operator=(const CommActivity&);

  /// Blocks the calling SimGrid actor until the communication has completed.
  void wait() const;
  /// Blocks the calling SimGrid actor until the communication completes or `timeout_s`
  /// simulated seconds pass, whichever comes first.
  void wait_for(double timeout_s) const;
  bool done() const { return timing_->end_s >= 0; }
  double start_s() const { return timing_->start_s; }
  /// Completion time, in simulated seconds; negative while in flight.
  double end_s() const { return timing_->end_s; }
  double duration_s() const { return timing_->end_s - timing_->start_s; }

 private:
  std::shared_ptr<const CommTiming> timing_;
};

}  // namespace trainsim::engine
