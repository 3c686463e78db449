// Sleeps and timed waits on kernel timers and semaphores (sim/engine/timer_wait.hpp): they
// end at their dates, a release ends a wait early, a timeout ends it otherwise, and what
// sleeps beside a collective does not change the collective's time. Each simulation runs
// in a forked child (one SimGrid engine per process).

#include <gtest/gtest.h>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <vector>

#include "sim/engine/collective.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/timer_wait.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/engine/test_clusters.hpp"

namespace trainsim::engine {
namespace {

namespace sg4 = simgrid::s4u;

double now() {
  return sg4::Engine::get_clock();
}

TEST(TimerWait, SleepsEndAtTheirDates) {
  const std::vector<double> ends = test::run_isolated([] {
    Simulation sim;
    const Platform platform(test::small_cluster(1, 2, Fabric::rail_optimized));
    std::vector<double> out(3, -1);
    sg4::Actor::create("long", platform.host(0), [&] {
      timer_sleep(1.5);
      out[0] = now();
    });
    sg4::Actor::create("short", platform.host(1), [&] {
      timer_sleep(0.25);
      timer_sleep(0);  // nothing
      timer_sleep(-1);
      out[1] = now();
      timer_sleep(0.5);
      out[2] = now();
    });
    sim.run();
    return out;
  });
  EXPECT_DOUBLE_EQ(ends[0], 1.5);
  EXPECT_DOUBLE_EQ(ends[1], 0.25);
  EXPECT_DOUBLE_EQ(ends[2], 0.75);
}

TEST(TimerWait, AReleaseEndsTheWaitElseTheTimeout) {
  const std::vector<double> out = test::run_isolated([] {
    Simulation sim;
    const Platform platform(test::small_cluster(1, 2, Fabric::rail_optimized));
    const sg4::SemaphorePtr released = sg4::Semaphore::create(0);
    const sg4::SemaphorePtr never = sg4::Semaphore::create(0);
    const sg4::SemaphorePtr later = sg4::Semaphore::create(0);
    std::vector<double> r(6, -1);
    sg4::Actor::create("waiter", platform.host(0), [&] {
      r[0] = acquire_for(released, 1.0) ? 1 : 0;  // released at 0.3
      r[1] = now();
      r[2] = acquire_for(never, 0.5) ? 1 : 0;  // times out at 0.8
      r[3] = now();
      r[4] = acquire_for(later, -1) ? 1 : 0;  // no limit: released at 2
      r[5] = now();
    });
    sg4::Actor::create("releaser", platform.host(1), [&] {
      timer_sleep(0.3);
      released->release();
      timer_sleep(1.7);
      later->release();
    });
    sim.run();
    return r;
  });
  EXPECT_EQ(out[0], 1);
  EXPECT_DOUBLE_EQ(out[1], 0.3);
  EXPECT_EQ(out[2], 0);
  EXPECT_DOUBLE_EQ(out[3], 0.8);
  EXPECT_EQ(out[4], 1);
  EXPECT_DOUBLE_EQ(out[5], 2.0);
}

// A collective waited for without a limit, with a short limit, and with sleepers beside it.
TEST(TimerWait, WaitsForACollectiveAndLeavesItsTimeAlone) {
  const auto run = [](int sleepers) {
    return test::run_isolated([sleepers] {
      Simulation sim;
      const Platform platform(test::small_cluster(2, 8, Fabric::rail_optimized));
      CollectiveCall call;
      call.op = CollectiveOp::all_reduce;
      call.bytes = 1e9;
      for (int g = 0; g < 16; ++g) call.gpus.push_back(g);
      std::vector<double> r(5, -1);
      sg4::Actor::create("waiter", platform.host(0), [&] {
        const CommActivity c = start_collective(platform, call);
        c.wait_for(1e-6);
        r[0] = now();
        r[1] = c.done() ? 1 : 0;
        c.wait();
        r[2] = now();
        r[3] = c.end_s();
        r[4] = c.duration_s();
      });
      for (int i = 0; i < sleepers; ++i)
        sg4::Actor::create("sleeper", platform.host(1 + i % 15), [i] {
          for (int k = 0; k < 20; ++k) timer_sleep(1e-4 * (1 + i % 7));
        });
      sim.run();
      return r;
    });
  };
  const std::vector<double> alone = run(0);
  EXPECT_DOUBLE_EQ(alone[0], 1e-6);
  EXPECT_EQ(alone[1], 0);
  EXPECT_GT(alone[4], 1e-3);
  EXPECT_EQ(alone[2], alone[3]);  // woken at the end
  const std::vector<double> beside = run(64);
  EXPECT_NEAR(beside[4], alone[4], 1e-12 * alone[4]);
}

}  // namespace
}  // namespace trainsim::engine
