#pragma once
// Sleeps and timed waits that the network's solver never sees.
//
// Under host/model:ptask_L07 (simulation.hpp) SimGrid 3.32 makes every sleep an action of the
// host's CPU in the one linear system that also shares the links (src/surf/ptask_L07.cpp,
// CpuL07::sleep: execution_start, then its penalty set to 0), and so is every wait with a
// timeout and every actor join, timed or not (src/kernel/actor/ActorImpl.cpp,
// ActorImpl::join sleeps until the joined actor's exit ends the sleep). Each such start and
// end marks the system modified, and the next event re-solves every variable and active
// constraint of the cluster (src/kernel/lmm/fair_bottleneck.cpp, FairBottleneck::do_solve).
// Here a semaphore wakes the actor instead: released by a kernel timer at the date
// (simgrid/kernel/Timer.hpp: the engine advances its clock to the next timer as to the next
// action's end, src/kernel/EngineImpl.cpp, EngineImpl::run), or by whoever the actor waits
// for. Nothing enters the system. What it saves: sim/step/README.md, "Clusters that are not
// uniform".

#include <simgrid/forward.h>

namespace trainsim::engine {

/// Suspends the calling actor for `seconds` of simulated time (nothing when not positive).
void timer_sleep(double seconds);

/// Acquires `wake`, waiting at most `timeout_s` simulated seconds (negative: no limit).
/// Returns whether it was released by another than the timeout.
bool acquire_for(const simgrid::s4u::SemaphorePtr& wake, double timeout_s);

}  // namespace trainsim::engine
