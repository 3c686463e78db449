#pragma once
// The SimGrid engine of one simulation, configured for trainsim.
//
// SimGrid 3.32 allows one engine per process: a second one aborts in its configuration
// ("Cannot change the model after the initialization", measured). Tests therefore run
// each simulation in a forked child (tests/engine/isolated_run.hpp); the CLI runs one per
// invocation.
//
// Models (../shared/DESIGN.md, "Engine notes", measured on 3.32):
// - host/model:ptask_L07, because a collective is submitted as parallel tasks (one byte
//   matrix per segment, plan_runner.hpp). L07 brings its own network model: a task waits
//   the largest route latency among its transfers, then shares link bandwidth max-min with
//   every other task, without the latency and bandwidth factors that make LV08 +153% off
//   the analytic ring. network/crosstraffic:0 and network/TCP-gamma:1e12 are set too, as
//   DESIGN.md prescribes, so that plain comms carry no acknowledgement traffic or window cap.

#include <memory>

#include <simgrid/forward.h>

namespace trainsim::engine {

class Simulation {
 public:
  /// Creates and configures the process' SimGrid engine. Throws trainsim::Error when this
  /// process already created one.
  Simulation();
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// Runs until every actor has finished.
  void run();
  /// Simulated time, in seconds.
  double clock_s() const;

 private:
  std::unique_ptr<simgrid::s4u::Engine> engine_;
};

}  // namespace trainsim::engine
