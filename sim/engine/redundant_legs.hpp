#pragma once
// Legs of a lone plan's parallel tasks that can be left out without changing the simulation.
//
// SimGrid's ptask model (host/model:ptask_L07) makes each parallel task one variable of its
// fair-bottleneck system and each link one constraint, whose elements are the tasks that
// cross it with their bytes (SimGrid 3.32, src/surf/ptask_L07.cpp, L07Action's constructor:
// one element per link, the bytes of every host pair whose route crosses it summed in the
// byte matrix' row-major order). Every event re-solves the whole system
// (lmm::FairBottleneck::do_solve), so a collective's cost per event grows with its elements.
//
// Two constraints with the same bound, sharing policy and elements (the same tasks, with
// bit-identical weights, created in the same order) are duplicates: the solve
// (src/kernel/lmm/fair_bottleneck.cpp) computes each constraint's share from its own
// remaining capacity and elements, gives each variable the minimum over its constraints,
// and updates each constraint from its own elements, so a duplicate repeats a value it
// would have anyway, round after round, and saturates in the same round as its twin. A set
// of host pairs that shares no link with the rest of the phase (a component), whose every
// link has a twin among the links kept, can therefore be left out of its tasks: the values
// are bit-identical. A task also keeps the pair that sets its latency (the largest route
// latency) and the one that sets its TCP-gamma bound (the largest latency x bytes).
//
// This holds only while nothing else loads those links: the caller must know that the plan
// runs alone on the platform (plan_runner.hpp, PlanSurroundings::alone), or name the links
// that other activities may cross (`never_left_out`): a component crossing one stays, and
// such a link is no twin (its constraint has elements the phase does not see). Plans that
// run beside one another, at any times, are reduced together as the tasks of one phase
// (plan_runner.hpp: prepare_plans_together): two links with the same elements over all of
// them carry, at every instant, the same running tasks, created in the same order. Which legs share a
// link is read from the platform's routes by number (fabric_routes.hpp), the ones its
// SimGrid zone gives the ptask model; no SimGrid object is needed, so the endpoints a lone
// plan keeps are known before its platform is built.
// tests/engine/redundant_legs_test.cpp runs collectives with and without the reduction and
// compares their times bit for bit.

#include <cstddef>
#include <vector>

#include "sim/engine/fabric_routes.hpp"

namespace trainsim::engine {

/// One leg of a phase's transfers: between two simulated hosts (endpoint indices).
struct Leg {
  int src = 0;
  int dst = 0;
  double bytes = 0;
};

/// A parallel task: legs [first, last) of the phase, on these endpoints, in the order of
/// their rows and columns in the task's byte matrix.
struct TaskLegs {
  std::size_t first = 0;
  std::size_t last = 0;
  std::vector<int> endpoints;
};

/// For each leg of `legs` (packed into `tasks`): true when it can be left out, as above.
/// `never_left_out`: per link number, the links other activities may cross (empty: none).
/// Pairs, legs and link elements are numbered in 32 bits (the planning heap, issue 59.4): a
/// phase of more than 715,827,882 legs (2^32 - 1 over a route's at most 6 links) is an Error.
std::vector<bool> redundant_legs(const FabricRoutes& routes, const std::vector<Leg>& legs,
                                 const std::vector<TaskLegs>& tasks, const std::vector<bool>& never_left_out = {});

}  // namespace trainsim::engine
