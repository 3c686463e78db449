#pragma once
// Runs a CommPlan on the platform as SimGrid parallel tasks.
//
// Each phase's transfers become legs (platform.hpp: Platform::hops); the legs are packed,
// in plan order, into parallel tasks of at most 128 hosts, each with a byte matrix
// (`Exec::set_bytes_amounts`), so that link sharing between legs and with every other
// activity comes from SimGrid's model. ../shared/DESIGN.md ("Engine notes", measured):
// dense byte matrices cost O(hosts^2), so tasks stay <= 256 hosts; thousands of separate
// detached comms would cost O(outstanding) per completion on 3.32. A task waits the
// largest latency of its legs, then moves its bytes; the rest of the phase's latency term
// (CommPhase::latency_s) is slept after the tasks complete.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/collective.hpp"
#include "sim/engine/comm_activity.hpp"
#include "sim/engine/comm_plan.hpp"
#include "sim/engine/platform.hpp"

namespace trainsim::engine {

/// What else may load the platform's links while a plan runs. `alone`: nothing (the caller
/// knows it: one collective at a time, as `trainsim collective` and trainsim-bench-collective
/// run them); each task then leaves out the legs whose links duplicate links it keeps
/// (redundant_legs.hpp), which makes large collectives cheaper to simulate and gives
/// bit-identical times. `shared`: every leg runs (contention tests, the step's pipeline
/// transfers; its gradient-group plans are prepared together: prepare_plans_together).
enum class PlanSurroundings { shared, alone };

/// How the runner spreads a phase's parallel tasks over SimGrid actors (plan_runner.cpp:
/// run_phase): at most `tasks_per_actor` per actor. A plan alone simulates to the bit the
/// same whatever the value; beside other plans the last bits may move (SimGrid ends
/// simultaneous tasks of different actors in another order: tests/engine/plan_runner_test.cpp),
/// so by default only phases of over 1,024 tasks (131,072 hosts and more) are split.
struct PlanRunOptions {
  size_t tasks_per_actor = 1024;
};

/// For a plan alone (prepare_lone_plan), which simulates to the bit the same whatever the
/// split: helpers of 64 tasks walk short activity lists (1 GiB ring on 524,288 GPUs: its
/// simulation 3.9-4.0 s instead of 5.0-5.2 s with 1,024, two runs each back to back).
inline constexpr PlanRunOptions k_lone_plan_run{64};

/// A communication a plan queues behind: the plan starts once it has completed, as NCCL runs
/// the collectives issued to one communicator one after another on its stream (none: now).
using QueuedAfter = std::optional<CommActivity>;

/// Starts `plan` now (at t = 0 when called before Simulation::run), or once `after` has
/// completed. `platform` must outlive the simulation.
CommActivity start_plan(const Platform& platform, CommPlan plan, const std::string& name = "plan",
                        PlanSurroundings surroundings = PlanSurroundings::shared, PlanRunOptions options = {},
                        QueuedAfter after = {});

/// A plan with the legs of each phase it leaves out (redundant_legs.hpp).
struct PreparedPlan {
  CommPlan plan;
  std::vector<std::vector<bool>> left_out;  ///< per phase, per leg (Platform::hops order); empty: none
};

/// Finds the legs `plan` leaves out when it runs alone. `platform` may be one without
/// SimGrid (Platform::without_simgrid) of the cluster the plan will run on. With `endpoints`
/// (sized to the platform's endpoints, false where new), also marks every endpoint the legs
/// kept touch and endpoint 0, where the plan's actor runs: a platform built with only those
/// (Platform's `built`) simulates the plan alone to the bit as the whole platform does, the
/// same links carrying the same tasks in the same relative order
/// (tests/engine/redundant_legs_test.cpp).
PreparedPlan prepare_lone_plan(const Platform& platform, CommPlan plan, std::vector<bool>* endpoints = nullptr);

/// Finds the legs each of `plans` leaves out when they run beside one another, each any
/// number of times and at any time, beside activities that cross no link but those marked
/// in `foreign_links` (per link number, FabricRoutes; mark_message_links). Every phase of
/// every plan is reduced as tasks of one phase (redundant_legs.hpp), so two links left
/// twins carry the same elements whichever of the plans run. `endpoints` as above.
std::vector<PreparedPlan> prepare_plans_together(const Platform& platform, std::vector<CommPlan> plans,
                                                 const std::vector<bool>& foreign_links,
                                                 std::vector<bool>* endpoints = nullptr);

/// Marks in `links` (per link number, sized to the platform's links) every link a message
/// from `src_gpu` to `dst_gpu` crosses, over all its legs (Platform::hops).
void mark_message_links(const Platform& platform, int src_gpu, int dst_gpu, std::vector<bool>& links);
/// mark_message_links for a message between any two of `gpus`, each way.
void mark_group_links(const Platform& platform, const std::vector<int>& gpus, std::vector<bool>& links);

/// Starts a prepared plan now (or once `after` has completed), leaving out its legs as
/// prepared (without finding them again).
CommActivity start_prepared_plan(const Platform& platform, std::shared_ptr<const PreparedPlan> prepared,
                                 const std::string& name = "plan", PlanRunOptions options = {},
                                 QueuedAfter after = {});

/// plan_collective() then start_plan(). Throws InputError for an invalid call.
CommActivity start_collective(const Platform& platform, const CollectiveCall& call,
                              PlanSurroundings surroundings = PlanSurroundings::shared);

}  // namespace trainsim::engine
