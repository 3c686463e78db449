// The actors that run plans, kept for the next (sim/engine/plan_workers.hpp): a job runs at
// once, on a worker of its own while others are busy, on an idle one otherwise; it runs to
// its end with nobody waiting for it; jobs may start jobs and wait for them (SimGrid 3.32
// crashed when a daemon was made one before it started: plan_workers.cpp); and the
// simulation ends when the last job does. Each simulation runs in a forked child (one
// SimGrid engine per process).

#include <gtest/gtest.h>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <string>
#include <vector>

#include "sim/engine/plan_workers.hpp"
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

// What a run saw: each job's end, how many actors named "job" were created, the clock at
// the end of the simulation.
struct Seen {
  std::vector<double> ends;
  int job_actors = 0;
  double end_s = -1;
};

// Runs `script` (which starts jobs, recording into `seen.ends`) in a simulation of one node.
template <typename Script>
Seen run(int jobs, Script script) {
  const std::vector<double> packed = test::run_isolated([&] {
    Simulation sim;
    const Platform platform(test::small_cluster(1, 2, Fabric::rail_optimized));
    Seen seen;
    seen.ends.assign(jobs, -1);
    sg4::Actor::on_creation_cb([&seen](const sg4::Actor& a) { seen.job_actors += a.get_name() == "job"; });
    script(platform.host(0), seen);
    sim.run();
    std::vector<double> out = seen.ends;
    out.push_back(seen.job_actors);
    out.push_back(now());
    return out;
  });
  Seen seen;
  seen.ends.assign(packed.begin(), packed.end() - 2);
  seen.job_actors = static_cast<int>(packed[packed.size() - 2]);
  seen.end_s = packed.back();
  return seen;
}

TEST(PlanWorkers, AWorkerDoneRunsTheNextJobOnItsHost) {
  const Seen seen = run(2, [](sg4::Host* host, Seen& s) {
    run_on_worker(host, "job", [&s] {
      timer_sleep(1);
      s.ends[0] = now();
    });
    // Starts a job at t = 2 and ends: nobody waits for the job.
    sg4::Actor::create("later", host, [host, &s] {
      timer_sleep(2);
      run_on_worker(host, "job", [&s] {
        timer_sleep(1);
        s.ends[1] = now();
      });
    });
  });
  EXPECT_EQ(seen.ends, (std::vector<double>{1, 3}));
  EXPECT_EQ(seen.job_actors, 1);
  EXPECT_EQ(seen.end_s, 3);
}

TEST(PlanWorkers, JobsAtOnceRunAtOnceEachOnAWorker) {
  const Seen seen = run(3, [](sg4::Host* host, Seen& s) {
    for (int j = 0; j < 2; ++j)
      run_on_worker(host, "job", [&s, j] {
        timer_sleep(1);
        s.ends[j] = now();
      });
    sg4::Actor::create("later", host, [host, &s] {
      timer_sleep(2);
      run_on_worker(host, "job", [&s] {
        timer_sleep(0.5);
        s.ends[2] = now();
      });
    });
  });
  EXPECT_EQ(seen.ends, (std::vector<double>{1, 1, 2.5}));
  EXPECT_EQ(seen.job_actors, 2);
  EXPECT_EQ(seen.end_s, 2.5);
}

TEST(PlanWorkers, JobsMayStartJobsAndWaitForThem) {
  // As run_phase's helpers: an outer job starts three and waits for each to release `done`;
  // then, twice more, on the workers the first round left idle.
  const Seen seen = run(3, [](sg4::Host* host, Seen& s) {
    run_on_worker(host, "job", [host, &s] {
      for (int round = 0; round < 3; ++round) {
        const sg4::SemaphorePtr done = sg4::Semaphore::create(0);
        for (int h = 1; h <= 3; ++h)
          run_on_worker(host, "job", [done, h] {
            timer_sleep(h);
            done->release();
          });
        for (int h = 0; h < 3; ++h) done->acquire();
        s.ends[round] = now();
      }
    });
  });
  EXPECT_EQ(seen.ends, (std::vector<double>{3, 6, 9}));
  EXPECT_EQ(seen.job_actors, 4);
  EXPECT_EQ(seen.end_s, 9);
}

}  // namespace
}  // namespace trainsim::engine
