#pragma once
// The actors that run plans (plan_runner.cpp), kept for the next plan once theirs is done.
//
// Every plan runs in an actor of its own, and a step's pipeline sends, collectives and
// gradient reductions are tens of thousands of plans. Creating a SimGrid 3.32 actor
// allocates its stack and protects a guard page below it (src/kernel/context/
// ContextSwapped.cpp: SwappedContext's constructor, mprotect; its destructor undoes both):
// 87,296 pipeline sends in the 405B step with 256 slow GPUs at 16,384 GPUs, where a perf
// profile put 7 % of the run in mprotect and as much again in the allocator. An idle worker
// waits on its own semaphore for the next job on its host instead. Workers are daemons, so
// that idle ones end when every other actor has (SimGrid kills the remaining daemons then:
// src/kernel/EngineImpl.cpp, EngineImpl::run), and while any of a host's workers is busy an
// actor that is not a daemon waits for them all to be idle, so that every plan runs to its
// end as in an actor of its own.

#include <simgrid/forward.h>
#include <functional>
#include <string>

namespace trainsim::engine {

/// Runs `job` in an actor on `host` now: an idle worker of the host's, woken, or a new one
/// named `name`. `job` runs as the actor's own code (it may block).
void run_on_worker(simgrid::s4u::Host* host, const std::string& name, std::function<void()> job);

}  // namespace trainsim::engine
