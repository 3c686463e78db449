#pragma once
// A stage actor's clock that runs its sleeps lazily. Every event of the engine costs a pass
// over every action in flight on the cluster (SimGrid 3.32's ptask model updates them all;
// bench/README.md, "Benchmarks and scale"). A pass's compute pieces and its cached TP
// collectives are sleeps that nothing else on the platform can see: run back to back they
// end at the same time as one sleep of their sum. The actor adds them up and sleeps once,
// when it next has to meet the platform (start, wait for or test an activity, wait at a
// barrier); until then now() is the time the sleeps run so far would have reached. It sleeps
// on a kernel timer (engine/timer_wait.hpp), which the network's solver never sees.
//
// The sum is rounded once instead of at each piece, so times may differ from sleeping each
// piece in the last bits (tests/step/lazy_clock_test.cpp holds lazy and eager equal to 1e-9).

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "sim/engine/timer_wait.hpp"

namespace trainsim {

class LazyClock {
 public:
  explicit LazyClock(bool lazy) : lazy_(lazy) {}

  /// The actor's time: the engine's clock plus the sleeps not yet run.
  double now() const { return simgrid::s4u::Engine::get_clock() + pending_s_; }

  /// Sleeps `seconds`, now or at the next settle().
  void sleep(double seconds) {
    if (seconds <= 0) return;
    if (lazy_) {
      pending_s_ += seconds;
      return;
    }
    engine::timer_sleep(seconds);
  }

  /// Runs the sleeps added up: call before anything the rest of the platform sees or decides.
  void settle() {
    if (pending_s_ <= 0) return;
    const double seconds = pending_s_;
    pending_s_ = 0;
    engine::timer_sleep(seconds);
  }

 private:
  bool lazy_;
  double pending_s_ = 0;
};

}  // namespace trainsim
