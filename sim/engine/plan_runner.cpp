#include "sim/engine/plan_runner.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <unordered_map>
#include <vector>

#include "sim/engine/algorithm_selection.hpp"

namespace trainsim::engine {

namespace sg4 = simgrid::s4u;

namespace {

// Hosts per parallel task: DESIGN.md measured a 16,384-GPU ring as 128-host segments.
constexpr size_t k_task_hosts = 128;

struct Leg {
  int src = 0;
  int dst = 0;
  double bytes = 0;
};

std::vector<sg4::ExecPtr> start_tasks(const Platform& platform, const std::vector<Leg>& legs) {
  std::vector<sg4::ExecPtr> tasks;
  size_t i = 0;
  while (i < legs.size()) {
    std::vector<int> endpoints;
    std::unordered_map<int, size_t> slot;
    const size_t first = i;
    for (; i < legs.size(); ++i) {
      const size_t extra = (slot.count(legs[i].src) ? 0 : 1) + (slot.count(legs[i].dst) ? 0 : 1);
      if (endpoints.size() + extra > k_task_hosts) break;
      for (const int e : {legs[i].src, legs[i].dst})
        if (slot.try_emplace(e, endpoints.size()).second) endpoints.push_back(e);
    }
    const size_t k = endpoints.size();
    std::vector<double> bytes(k * k, 0.0);
    for (size_t j = first; j < i; ++j) bytes[slot[legs[j].src] * k + slot[legs[j].dst]] += legs[j].bytes;
    std::vector<sg4::Host*> hosts;
    hosts.reserve(k);
    for (const int e : endpoints) hosts.push_back(platform.host(e));
    auto task = sg4::Exec::init();
    task->set_hosts(hosts);
    task->set_flops_amounts(std::vector<double>(k, 0.0));
    task->set_bytes_amounts(bytes);
    task->start();
    tasks.push_back(task);
  }
  return tasks;
}

void run_phase(const Platform& platform, const CommPhase& phase) {
  std::vector<Leg> legs;
  legs.reserve(phase.transfers.size());
  double paid_s = 0;  // the largest latency a task pays by itself
  for (const Transfer& t : phase.transfers) {
    if (!(t.bytes > 0)) continue;
    for (const Hop& h : platform.hops(t.src_gpu, t.dst_gpu)) {
      legs.push_back({h.src, h.dst, t.bytes});
      paid_s = std::max(paid_s, platform.hop_latency_s(h));
    }
  }
  for (const sg4::ExecPtr& task : start_tasks(platform, legs)) task->wait();
  if (phase.latency_s > paid_s) sg4::this_actor::sleep_for(phase.latency_s - paid_s);
}

}  // namespace

CommActivity start_plan(const Platform& platform, CommPlan plan, const std::string& name) {
  auto timing = std::make_shared<CommTiming>();
  timing->start_s = sg4::Engine::get_clock();
  sg4::Host* where = platform.host(0);
  auto actor = sg4::Actor::create(name, where, [&platform, plan = std::move(plan), timing]() {
    timing->start_s = sg4::Engine::get_clock();
    for (const CommPhase& phase : plan.phases) run_phase(platform, phase);
    timing->end_s = sg4::Engine::get_clock();
  });
  return CommActivity(actor, timing);
}

CommActivity start_collective(const Platform& platform, const CollectiveCall& call) {
  return start_plan(platform, plan_collective(call, platform), op_name(call.op));
}

}  // namespace trainsim::engine
