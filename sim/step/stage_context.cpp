#include "sim/step/stage_context.hpp"

#include <algorithm>
#include <utility>

#include "sim/engine/plan_runner.hpp"
#include "sim/step/gradient_groups.hpp"
#include "sim/step/simulated_scope.hpp"

namespace trainsim {

namespace {

// Activity records shorter than this are not reported (observe).
constexpr double k_shortest_record_s = 1e-12;

}  // namespace

WorkRate work_rate(const PassCost& pass) {
  if (pass.compute_s <= 0) return {};
  return {pass.executed_flops / pass.compute_s, pass.executed_bytes / pass.compute_s};
}

double bus_bytes(engine::CollectiveOp op, double bytes, int ranks) {
  return ranks > 1 ? bytes * engine::bus_bandwidth_factor(op, ranks) : 0.0;
}

StageContext::StageContext(StepWorld& world, int stage_index, int class_index, int account)
    : w(world),
      stage(stage_index),
      replica_class(world.simulated.classes[static_cast<size_t>(class_index)]),
      replica(replica_class.representative),
      account_index(account),
      rank(rank_of(world.mapping, replica, stage_index)),
      leader_rank(rank_of(world.mapping, 0, stage_index)),
      costs(world.costs.stages[static_cast<size_t>(stage_index)]),
      clock(world.options.lazy_sleeps) {}

void StageContext::observe(ActivityStream stream, std::string kind, const PipelineTask* t, double start, double end,
                           double bytes, double flops, ActivityComm comm, double hbm_bytes) {
  // Shorter than a picosecond is a rounding remainder (a pass's last slot leaves its
  // compute split to the last bit), not an activity.
  if (!w.options.observer || end - start < k_shortest_record_s) return;
  ActivityRecord r;
  r.rank = rank;
  r.stage = stage;
  r.replica = replica;
  r.stream = stream;
  r.kind = std::move(kind);
  r.chunk = t ? t->chunk : -1;
  r.microbatch = t ? t->microbatch : -1;
  r.step = step;
  r.start_s = start;
  r.end_s = end;
  r.bytes = bytes;
  r.flops = flops;
  r.hbm_bytes = hbm_bytes;
  r.comm = std::move(comm);
  w.options.observer->on_activity(r);
}

double StageContext::wait_all_started(const std::vector<ReplicaRendezvous::Key>& keys) {
  clock.settle();
  const double start = clock.now();
  for (const ReplicaRendezvous::Key& key : keys) w.rendezvous.wait_started(key);
  const double waited = clock.now() - start;
  account().straggler_wait += waited;
  if (waited > 0 && !keys.empty()) {
    const auto last = std::max_element(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
      return w.rendezvous.started(a)->start_s() < w.rendezvous.started(b)->start_s();
    });
    account().waited_for[w.rendezvous.starter(*last)] += waited;
  }
  return waited;
}

int StageContext::gradient_group_size(GradientScope scope, bool experts) const {
  return static_cast<int>(gradient_group(w.mapping, w.scenario.parallel, rank, experts, scope).size());
}

engine::CommActivity StageContext::start_gradient_plan(const GradientPlanKey& key, const std::string& name,
                                                       engine::QueuedAfter after) {
  clock.settle();
  if (auto prepared = w.gradient_plans.find(key))
    return engine::start_prepared_plan(w.platform, prepared, name, {}, std::move(after));
  const GradientGroups groups{w.mapping, w.scenario.parallel, w.simulated.one_transfer_per_tp_group};
  return engine::start_plan(w.platform, gradient_plan(key, groups, w.platform), name, engine::PlanSurroundings::shared,
                            {}, std::move(after));
}

std::vector<ActivityCollective> StageContext::group_collectives(engine::CollectiveOp op, double bytes,
                                                                double expert_bytes, GradientScope scope) const {
  return plan_collectives({rank, op, bytes, expert_bytes, scope, false}, w.scenario.parallel);
}

}  // namespace trainsim
