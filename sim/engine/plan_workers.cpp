#include "sim/engine/plan_workers.hpp"

#include <memory>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <utility>
#include <vector>

namespace trainsim::engine {

namespace sg4 = simgrid::s4u;

namespace {

// One worker: the semaphore it waits on while idle, and the job it is given.
struct Worker {
  sg4::SemaphorePtr wake = sg4::Semaphore::create(0);
  std::function<void()> job;
};

// A host's workers, kept as the host's extension (SimGrid's per-object data,
// xbt/Extendable.hpp): they live and die with the simulation's platform. While any is busy,
// a keeper (not a daemon) waits for `all_idle`: SimGrid kills daemons as soon as only daemons
// remain, and a plan started before Simulation::run, or by an actor that then ends, has
// nobody else to keep it running.
struct IdleWorkers {
  static simgrid::xbt::Extension<sg4::Host, IdleWorkers> EXTENSION_ID;
  std::vector<std::shared_ptr<Worker>> idle;
  int busy = 0;
  sg4::SemaphorePtr all_idle;
};
simgrid::xbt::Extension<sg4::Host, IdleWorkers> IdleWorkers::EXTENSION_ID;

IdleWorkers& idle_workers(sg4::Host* host) {
  if (!IdleWorkers::EXTENSION_ID.valid()) IdleWorkers::EXTENSION_ID = sg4::Host::extension_create<IdleWorkers>();
  if (!host->extension<IdleWorkers>()) host->extension_set(new IdleWorkers());
  return *host->extension<IdleWorkers>();
}

// A worker's life: its job, then idle until the next (or until SimGrid kills it).
void serve(sg4::Host* host, const std::shared_ptr<Worker>& w) {
  for (;;) {
    const std::function<void()> job = std::move(w->job);
    w->job = nullptr;
    job();
    IdleWorkers& workers = idle_workers(host);
    if (--workers.busy == 0) workers.all_idle->release();
    workers.idle.push_back(w);
    w->wake->acquire();
  }
}

}  // namespace

void run_on_worker(sg4::Host* host, const std::string& name, std::function<void()> job) {
  IdleWorkers& workers = idle_workers(host);
  if (workers.busy++ == 0) {
    workers.all_idle = sg4::Semaphore::create(0);
    sg4::Actor::create("plan-keeper", host, [all_idle = workers.all_idle] { all_idle->acquire(); });
  }
  if (!workers.idle.empty()) {
    const std::shared_ptr<Worker> w = std::move(workers.idle.back());
    workers.idle.pop_back();
    w->job = std::move(job);
    w->wake->release();
    return;
  }
  auto w = std::make_shared<Worker>();
  w->job = std::move(job);
  // Daemonized once started, not between Actor::init and start: an actor made a daemon there
  // counts among EngineImpl's daemons_ before it is in its actor_list_ (ActorImpl::start
  // adds it), and EngineImpl::run, which kills every daemon as soon as both sets are the same
  // size, would kill it unstarted and crash (SimGrid 3.32: src/kernel/EngineImpl.cpp,
  // EngineImpl::run; src/kernel/actor/ActorImpl.cpp, ActorImpl::init and start).
  sg4::Actor::create(name, host, [host, w] { serve(host, w); })->daemonize();
}

}  // namespace trainsim::engine
