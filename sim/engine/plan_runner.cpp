#include "sim/engine/plan_runner.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <vector>

#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/plan_workers.hpp"
#include "sim/engine/redundant_legs.hpp"
#include "sim/engine/redundant_tasks.hpp"
#include "sim/engine/timer_wait.hpp"

namespace trainsim::engine {

namespace sg4 = simgrid::s4u;

namespace {

// Hosts per parallel task: DESIGN.md measured a 16,384-GPU ring as 128-host segments.
constexpr size_t k_task_hosts = 128;

// Endpoint -> its slot in one task (at most k_task_hosts endpoints): open addressing over a
// fixed table, emptied entry by entry, so that packing and starting millions of legs
// allocates nothing per task (a hash map per task was most of a large tree's plan).
class TaskSlots {
 public:
  TaskSlots() { keys_.fill(-1); }
  /// The slot of `endpoint`, or -1.
  int find(int endpoint) const {
    const size_t i = probe(endpoint);
    return keys_[i] == endpoint ? values_[i] : -1;
  }
  /// Gives `endpoint` `slot` unless it has one; whether it was added.
  bool add(int endpoint, int slot) {
    const size_t i = probe(endpoint);
    if (keys_[i] == endpoint) return false;
    keys_[i] = endpoint;
    values_[i] = slot;
    used_.push_back(i);
    return true;
  }
  void set(int endpoint, int slot) { values_[probe(endpoint)] = slot; }
  void clear() {
    for (const size_t i : used_) keys_[i] = -1;
    used_.clear();
  }

 private:
  static constexpr size_t k_size = 1024;  // a power of two, over 4 x k_task_hosts: short probes
  size_t probe(int endpoint) const {
    size_t i = (static_cast<uint32_t>(endpoint) * 2654435761u) & (k_size - 1);  // Knuth's multiplicative hash
    while (keys_[i] != -1 && keys_[i] != endpoint) i = (i + 1) & (k_size - 1);
    return i;
  }
  std::array<int, k_size> keys_{};
  std::array<int, k_size> values_{};
  std::vector<size_t> used_;
};

// The phase's legs packed, in plan order, into tasks of at most k_task_hosts endpoints.
std::vector<TaskLegs> pack(const std::vector<Leg>& legs) {
  std::vector<TaskLegs> tasks;
  TaskSlots slots;
  size_t i = 0;
  while (i < legs.size()) {
    TaskLegs task;
    task.first = i;
    slots.clear();
    for (; i < legs.size(); ++i) {
      const size_t extra = (slots.find(legs[i].src) < 0 ? 1 : 0) + (slots.find(legs[i].dst) < 0 ? 1 : 0);
      if (task.endpoints.size() + extra > k_task_hosts) break;
      for (const int e : {legs[i].src, legs[i].dst})
        if (slots.add(e, static_cast<int>(task.endpoints.size()))) task.endpoints.push_back(e);
    }
    task.last = i;
    tasks.push_back(std::move(task));
  }
  return tasks;
}

// Starts `task`'s legs but those marked in `left_out` (none when empty), on its endpoints
// that remain, in their order; none (null) when every leg is left out (redundant_tasks.hpp).
sg4::ExecPtr start_task(const Platform& platform, const std::vector<Leg>& legs, const TaskLegs& task,
                        const std::vector<bool>& left_out, TaskSlots& slots) {
  const auto kept = [&](size_t l) { return left_out.empty() || !left_out[l]; };
  slots.clear();
  for (size_t l = task.first; l < task.last; ++l)
    if (kept(l)) slots.add(legs[l].src, 0), slots.add(legs[l].dst, 0);
  if (!left_out.empty() && std::all_of(left_out.begin() + static_cast<std::ptrdiff_t>(task.first),
                                       left_out.begin() + static_cast<std::ptrdiff_t>(task.last),
                                       [](bool out) { return out; }))
    return nullptr;
  std::vector<sg4::Host*> hosts;
  for (const int e : task.endpoints) {
    if (slots.find(e) < 0) continue;
    slots.set(e, static_cast<int>(hosts.size()));
    hosts.push_back(platform.host(e));
  }
  const size_t k = hosts.size();
  std::vector<double> bytes(k * k, 0.0);
  for (size_t l = task.first; l < task.last; ++l)
    if (kept(l))
      bytes[static_cast<size_t>(slots.find(legs[l].src)) * k + static_cast<size_t>(slots.find(legs[l].dst))] +=
          legs[l].bytes;
  auto exec = sg4::Exec::init();
  exec->set_hosts(hosts);
  exec->set_flops_amounts(std::vector<double>(k, 0.0));
  exec->set_bytes_amounts(bytes);
  exec->start();
  return exec;
}

// A phase's legs, in transfer order, and the largest latency a task pays by itself.
struct PhaseLegs {
  std::vector<Leg> legs;
  double paid_s = 0;
};

PhaseLegs legs_of(const Platform& platform, const CommPhase& phase) {
  PhaseLegs out;
  out.legs.reserve(phase.transfers.size());
  for (const Transfer& t : phase.transfers) {
    if (!(t.bytes > 0)) continue;
    for (const Hop& h : platform.hops(t.src_gpu, t.dst_gpu)) {
      out.legs.push_back({h.src, h.dst, t.bytes});
      out.paid_s = std::max(out.paid_s, platform.hop_latency_s(h));
    }
  }
  return out;
}

// Starts tasks [first, last) and waits for them.
void run_tasks(const Platform& platform, const std::vector<Leg>& legs, const std::vector<TaskLegs>& tasks,
               const std::vector<bool>& left_out, size_t first, size_t last) {
  std::vector<sg4::ExecPtr> started;
  started.reserve(last - first);
  TaskSlots slots;
  for (size_t t = first; t < last; ++t)
    if (sg4::ExecPtr task = start_task(platform, legs, tasks[t], left_out, slots)) started.push_back(std::move(task));
  // Each task waited for as the one activity of a wait-any, not by Exec::wait: SimGrid 3.32
  // gives every plain wait a sleep action on the waiting actor's host (ActivityImpl::wait_for,
  // "to be notified of host failures"; every plan's actor runs on endpoint 0), which enters
  // the linear system that every event updates, while a wait-any without a timeout adds none
  // (ActivityImpl::wait_any_for). Both are answered when the task finishes, by the same
  // ExecImpl::finish.
  std::vector<sg4::ExecPtr> one(1);
  for (sg4::ExecPtr& task : started) {
    one[0] = std::move(task);
    sg4::Exec::wait_any(one);
  }
}

// Runs `phase`, leaving out the legs marked in `left_out` (none when empty).
//
// SimGrid 3.32 keeps an actor's activities in a list and removes each one that ends by a
// walk over the list (ExecImpl::post: the actor's activities_.remove; a perf profile of a
// 1 GiB ring all-reduce on 1,048,576 GPUs, one actor starting all its ~130,000 tasks, spent
// 95 % of the run in that walk): the cost of a phase grew with the square of its tasks. A
// phase of more than `per_actor` tasks starts them from helper actors of that many tasks
// each, created in task order at the same instant, so the tasks start in the same order at
// the same time (PlanRunOptions: what may change, tests/engine/plan_runner_test.cpp).
void run_phase(const Platform& platform, const CommPhase& phase, const std::vector<bool>& left_out,
               size_t per_actor) {
  const PhaseLegs phase_legs = legs_of(platform, phase);
  const std::vector<Leg>& legs = phase_legs.legs;
  const std::vector<TaskLegs> tasks = pack(legs);
  per_actor = std::max<size_t>(per_actor, 1);
  if (tasks.size() <= per_actor) {
    run_tasks(platform, legs, tasks, left_out, 0, tasks.size());
  } else {
    // Each helper releases `done` as its tasks end (a join would be a sleep in the solver:
    // timer_wait.hpp).
    const sg4::SemaphorePtr done = sg4::Semaphore::create(0);
    size_t helpers = 0;
    for (size_t first = 0; first < tasks.size(); first += per_actor, ++helpers) {
      const size_t last = std::min(tasks.size(), first + per_actor);
      run_on_worker(sg4::this_actor::get_host(), "plan-tasks", [&, first, last] {
        run_tasks(platform, legs, tasks, left_out, first, last);
        done->release();
      });
    }
    for (size_t h = 0; h < helpers; ++h) done->acquire();
  }
  if (phase.latency_s > phase_legs.paid_s) timer_sleep(phase.latency_s - phase_legs.paid_s);
}

// Runs the phases one after the other in an actor on endpoint 0 (plan_workers.hpp), once
// `after` (if any) has completed.
CommActivity start_phases(const Platform& platform, std::shared_ptr<const PreparedPlan> shared, const std::string& name,
                          PlanRunOptions options, QueuedAfter after) {
  auto timing = std::make_shared<CommTiming>();
  timing->start_s = sg4::Engine::get_clock();
  sg4::Host* where = platform.host(0);
  // Shared, not captured by value: SimGrid copies the actor's function (a whole plan: 300 MB
  // for a tree all-reduce on 1,048,576 GPUs).
  run_on_worker(where, name, [&platform, shared, timing, options, after]() {
    if (after) after->wait();
    timing->start_s = sg4::Engine::get_clock();
    const std::vector<bool> none;
    for (size_t p = 0; p < shared->plan.phases.size(); ++p)
      run_phase(platform, shared->plan.phases[p], shared->left_out.empty() ? none : shared->left_out[p],
                options.tasks_per_actor);
    timing->finish(sg4::Engine::get_clock());
  });
  return CommActivity(timing);
}

void mark_endpoints(const std::vector<Leg>& legs, const std::vector<bool>& left_out, std::vector<bool>& endpoints) {
  for (size_t l = 0; l < legs.size(); ++l)
    if (!left_out[l]) endpoints[static_cast<size_t>(legs[l].src)] = endpoints[static_cast<size_t>(legs[l].dst)] = true;
}

void size_endpoints(const Platform& platform, std::vector<bool>* endpoints) {
  if (!endpoints) return;
  endpoints->resize(static_cast<size_t>(platform.endpoint_count()), false);
  endpoints->at(0) = true;  // the plans' actors run on endpoint 0
}

}  // namespace

PreparedPlan prepare_lone_plan(const Platform& platform, CommPlan plan, std::vector<bool>* endpoints) {
  size_endpoints(platform, endpoints);
  PreparedPlan prepared;
  for (const CommPhase& phase : plan.phases) {
    const std::vector<Leg> legs = legs_of(platform, phase).legs;
    const std::vector<TaskLegs> tasks = pack(legs);
    std::vector<bool> left_out = redundant_legs(platform.routes(), legs, tasks);
    // Tasks that repeat others whole (every task of a lone phase starts at once).
    const std::vector<bool> copies = redundant_tasks(platform.routes(), legs, tasks, left_out);
    for (size_t t = 0; t < tasks.size(); ++t)
      if (copies[t]) std::fill(left_out.begin() + static_cast<std::ptrdiff_t>(tasks[t].first),
                               left_out.begin() + static_cast<std::ptrdiff_t>(tasks[t].last), true);
    if (endpoints) mark_endpoints(legs, left_out, *endpoints);
    prepared.left_out.push_back(std::move(left_out));
  }
  prepared.plan = std::move(plan);
  return prepared;
}

std::vector<PreparedPlan> prepare_plans_together(const Platform& platform, std::vector<CommPlan> plans,
                                                 const std::vector<bool>& foreign_links, std::vector<bool>* endpoints) {
  size_endpoints(platform, endpoints);
  // Every phase's legs and tasks, one after the other, as one phase.
  std::vector<Leg> legs;
  std::vector<TaskLegs> tasks;
  std::vector<size_t> phase_first;  // per phase of every plan: its first leg
  for (const CommPlan& plan : plans) {
    for (const CommPhase& phase : plan.phases) {
      const size_t first = legs.size();
      phase_first.push_back(first);
      const std::vector<Leg> phase_legs = legs_of(platform, phase).legs;
      for (TaskLegs& task : pack(phase_legs)) {
        task.first += first;
        task.last += first;
        tasks.push_back(std::move(task));
      }
      legs.insert(legs.end(), phase_legs.begin(), phase_legs.end());
    }
  }
  phase_first.push_back(legs.size());
  const std::vector<bool> left_out = redundant_legs(platform.routes(), legs, tasks, foreign_links);
  if (endpoints) mark_endpoints(legs, left_out, *endpoints);
  std::vector<PreparedPlan> prepared;
  size_t phase = 0;
  for (CommPlan& plan : plans) {
    PreparedPlan p;
    for (size_t i = 0; i < plan.phases.size(); ++i, ++phase)
      p.left_out.emplace_back(left_out.begin() + static_cast<std::ptrdiff_t>(phase_first[phase]),
                              left_out.begin() + static_cast<std::ptrdiff_t>(phase_first[phase + 1]));
    p.plan = std::move(plan);
    prepared.push_back(std::move(p));
  }
  return prepared;
}

void mark_message_links(const Platform& platform, int src_gpu, int dst_gpu, std::vector<bool>& links) {
  for (const Hop& h : platform.hops(src_gpu, dst_gpu)) {
    RouteLinks route;
    platform.routes().route(h.src, h.dst, route);
    for (int i = 0; i < route.count; ++i) links[static_cast<size_t>(route.links[static_cast<size_t>(i)])] = true;
  }
}

void mark_group_links(const Platform& platform, const std::vector<int>& gpus, std::vector<bool>& links) {
  for (const int a : gpus)
    for (const int b : gpus)
      if (a != b) mark_message_links(platform, a, b, links);
}

CommActivity start_prepared_plan(const Platform& platform, std::shared_ptr<const PreparedPlan> prepared,
                                 const std::string& name, PlanRunOptions options, QueuedAfter after) {
  return start_phases(platform, std::move(prepared), name, options, std::move(after));
}

CommActivity start_plan(const Platform& platform, CommPlan plan, const std::string& name,
                        PlanSurroundings surroundings, PlanRunOptions options, QueuedAfter after) {
  if (surroundings == PlanSurroundings::alone)
    return start_phases(platform, std::make_shared<const PreparedPlan>(prepare_lone_plan(platform, std::move(plan))),
                        name, options, std::move(after));
  auto every_leg = std::make_shared<PreparedPlan>();
  every_leg->plan = std::move(plan);
  return start_phases(platform, std::move(every_leg), name, options, std::move(after));
}

CommActivity start_collective(const Platform& platform, const CollectiveCall& call, PlanSurroundings surroundings) {
  return start_plan(platform, plan_collective(call, platform), op_name(call.op), surroundings);
}

}  // namespace trainsim::engine
