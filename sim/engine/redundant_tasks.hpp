#pragma once
// Whole parallel tasks of a lone plan's phase that can be left out without changing the
// simulation: copies of a part of the phase that is simulated anyway.
//
// redundant_legs.hpp leaves out legs whose links repeat links of the same task. What it
// cannot leave out are repeats in other tasks: the 16,384 nodes of a 131,072-GPU NVLS-tree
// each reduce in their own NVLink switch, 16 nodes a task, and every task is alike; the 8 heads
// of every node run their trees on 8 rails that share no link. Each is simulated, and each
// re-solve of SimGrid's system walks all of them.
//
// In SimGrid's ptask model (host/model:ptask_L07, SimGrid 3.32) a task is one variable of
// the fair-bottleneck system, with its latency (the largest route latency of its host pairs)
// and its bound (TCP-gamma over twice the largest latency x bytes); each link is one
// constraint whose elements are the tasks crossing it, each with the bytes of its pairs that
// cross it summed in the byte matrix' row-major order (src/surf/ptask_L07.cpp, L07Action's
// constructor; src/kernel/lmm/System.cpp, System::expand adds to a task's element). The solve
// (src/kernel/lmm/fair_bottleneck.cpp, FairBottleneck::do_solve) computes each variable's
// increment from its own constraints and each constraint's share from its own elements, round
// after round, and every action's remaining work, latency and completion are its own
// (src/surf/ptask_L07.cpp, HostL07Model::update_actions_state). So a component of tasks and
// links (tasks joined by the links they share) evolves by itself: two components that are
// the same system, up to the names of their tasks and links, give the same values at every
// event and end at the same instants. When every task of a phase starts at once (a plan alone:
// plan_runner.hpp), a component that repeats an earlier one can be left out whole: the phase
// still ends when the last of its tasks does, to the bit.
//
// The same system: the same number of tasks, in the same relative order; task by task the
// same latency and bound, the same links (by the order they first appear) with the same
// weights; link by link the same bandwidth. Compared bit for bit, after the legs
// redundant_legs() leaves out (what SimGrid would see). Two components that differ in
// anything the solve reads are kept both.
//
// tests/engine/redundant_tasks_test.cpp runs collectives with and without the reduction and
// compares their times bit for bit.

#include <vector>

#include "sim/engine/fabric_routes.hpp"
#include "sim/engine/redundant_legs.hpp"

namespace trainsim::engine {

/// For each task of `tasks` (the legs of one phase of a lone plan, packed; `left_out` the
/// legs redundant_legs() leaves out, empty for none): true when the task belongs to a
/// component that repeats an earlier one, as above. Every task of the phase must start at
/// the same instant and nothing else may load the links.
std::vector<bool> redundant_tasks(const FabricRoutes& routes, const std::vector<Leg>& legs,
                                  const std::vector<TaskLegs>& tasks, const std::vector<bool>& left_out);

}  // namespace trainsim::engine
