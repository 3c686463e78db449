// Schedule orders: each is complete and deadlock-free, and on equal stages with unit costs
// its bubble is the published one. The executor here is a test oracle only: the product
// runs schedules on SimGrid (sim/engine).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "sim/schedule/pipeline_schedule.hpp"

namespace trainsim {
namespace {

struct Costs {
  double forward = 1, backward = 2, weight = 0;  // per full stage; backward includes weight unless deferred
};

struct Result {
  double makespan = 0;
  double bubble_fraction = 0;  ///< idle over makespan, averaged over stages
};

// List-schedules every stage's order in time; a deferring schedule runs a pending weight task
// whenever its next task must wait. Fails the test on a deadlock.
Result execute(const PipelineSchedule& schedule, int pp, int m, int v, Costs c) {
  using Key = std::tuple<int, int, TaskPass>;  // micro-batch, global chunk, pass
  const int chunks = pp * v;
  std::map<Key, double> finish;
  std::vector<std::vector<PipelineTask>> orders;
  for (int s = 0; s < pp; ++s) orders.push_back(schedule.order(s, pp, m, v));
  std::vector<size_t> next(pp, 0);
  std::vector<double> free(pp, 0.0), busy(pp, 0.0);
  std::vector<std::vector<PipelineTask>> pending_w(pp);
  const bool defer = schedule.defers_weight_gradients();
  const double fwd = c.forward / v, bwd = c.backward / v, wgt = c.weight / v;

  auto deps_of = [&](int s, const PipelineTask& t) {
    const int g = t.chunk * pp + s;
    std::vector<Key> deps;
    if (t.pass == TaskPass::forward && g > 0) deps.push_back({t.microbatch, g - 1, TaskPass::forward});
    if (t.pass == TaskPass::backward) {
      deps.push_back({t.microbatch, g, TaskPass::forward});
      if (g < chunks - 1) deps.push_back({t.microbatch, g + 1, TaskPass::backward});
    }
    return deps;
  };
  auto run = [&](int s, const PipelineTask& t, double start, double cost) {
    free[s] = start + cost;
    busy[s] += cost;
    finish[{t.microbatch, t.chunk * pp + s, t.pass}] = free[s];
  };

  // A stage waiting on work no stage has scheduled yet is blocked until any task runs.
  std::vector<bool> blocked(pp, false);
  auto run_and_unblock = [&](int s, const PipelineTask& t, double start, double cost) {
    run(s, t, start, cost);
    std::fill(blocked.begin(), blocked.end(), false);
  };
  for (;;) {
    int s = -1;
    bool any_work = false;
    for (int i = 0; i < pp; ++i) {
      const bool has_work = next[i] < orders[i].size() || !pending_w[i].empty();
      any_work = any_work || has_work;
      if (has_work && !blocked[i] && (s < 0 || free[i] < free[s])) s = i;
    }
    if (!any_work) break;
    if (s < 0) {
      ADD_FAILURE() << schedule.name() << ": deadlock";
      return {};
    }
    if (next[s] == orders[s].size()) {  // only deferred weight tasks left
      run_and_unblock(s, pending_w[s].front(), free[s], wgt);
      pending_w[s].erase(pending_w[s].begin());
      continue;
    }
    const PipelineTask t = orders[s][next[s]];
    double ready = 0;
    bool known = true;
    for (const Key& k : deps_of(s, t)) {
      const auto it = finish.find(k);
      if (it == finish.end())
        known = false;
      else
        ready = std::max(ready, it->second);
    }
    if (defer && !pending_w[s].empty() && (!known || ready > free[s])) {
      run_and_unblock(s, pending_w[s].front(), free[s], wgt);
      pending_w[s].erase(pending_w[s].begin());
      continue;
    }
    if (!known) {
      blocked[s] = true;
      continue;
    }
    run_and_unblock(s, t, std::max(free[s], ready), t.pass == TaskPass::forward ? fwd : bwd);
    if (defer && t.pass == TaskPass::backward) pending_w[s].push_back({t.microbatch, t.chunk, TaskPass::weight});
    ++next[s];
  }
  Result r;
  r.makespan = *std::max_element(free.begin(), free.end());
  for (int s = 0; s < pp; ++s) r.bubble_fraction += (r.makespan - busy[s]) / r.makespan / pp;
  return r;
}

// Each of a stage's m x v (micro-batch, chunk) pairs runs its forward once, then its
// backward once.
void expect_every_task_once(const std::vector<PipelineTask>& order, int m, int v) {
  ASSERT_EQ(order.size(), 2u * m * v);
  for (int mb = 0; mb < m; ++mb) {
    for (int c = 0; c < v; ++c) {
      const auto f = std::find(order.begin(), order.end(), PipelineTask{mb, c, TaskPass::forward});
      const auto b = std::find(order.begin(), order.end(), PipelineTask{mb, c, TaskPass::backward});
      ASSERT_NE(f, order.end());
      ASSERT_NE(b, order.end());
      EXPECT_LT(f - order.begin(), b - order.begin());
    }
  }
}

TEST(PipelineSchedule, EveryTaskOnceForwardBeforeBackward) {
  for (Schedule kind : {Schedule::gpipe, Schedule::one_f_one_b, Schedule::interleaved, Schedule::zb_h1}) {
    const auto schedule = make_pipeline_schedule(kind);
    const int v = kind == Schedule::interleaved ? 3 : 1;
    for (int s = 0; s < 4; ++s) {
      SCOPED_TRACE(schedule->name());
      expect_every_task_once(schedule->order(s, 4, 8, v), 8, v);
    }
  }
}

TEST(PipelineSchedule, OneFOneBWarmup) {
  const auto schedule = make_pipeline_schedule(Schedule::one_f_one_b);
  const auto first = schedule->order(0, 4, 8, 1);
  // Stage 0 of 4: three warm-up forwards, then F3 B0 F4 B1 ...
  EXPECT_EQ(first[3], (PipelineTask{3, 0, TaskPass::forward}));
  EXPECT_EQ(first[4], (PipelineTask{0, 0, TaskPass::backward}));
  const auto last = schedule->order(3, 4, 8, 1);
  EXPECT_EQ(last[1], (PipelineTask{0, 0, TaskPass::backward}));
}

TEST(PipelineSchedule, GpipeAndOneFOneBBubble) {
  // Narayanan et al. §2.2.1: bubble (p-1)/(m+p-1) of the step; p = 4, m = 8: 27.3 %.
  for (Schedule kind : {Schedule::gpipe, Schedule::one_f_one_b}) {
    const auto r = execute(*make_pipeline_schedule(kind), 4, 8, 1, {});
    EXPECT_NEAR(r.bubble_fraction, 3.0 / 11.0, 1e-9);
    EXPECT_NEAR(r.makespan, (8 + 3) * 3.0, 1e-9);
  }
}

TEST(PipelineSchedule, InterleavedBubble) {
  // §2.2.2: (p-1)/(v m + p - 1).
  for (int v : {2, 3, 4}) {
    const auto r = execute(*make_pipeline_schedule(Schedule::interleaved), 4, 8, v, {});
    EXPECT_NEAR(r.bubble_fraction, 3.0 / (v * 8 + 3), 1e-9) << v;
  }
  // m = p: every forward is warm-up.
  const auto r = execute(*make_pipeline_schedule(Schedule::interleaved), 4, 4, 2, {});
  EXPECT_GT(r.makespan, 0);
}

TEST(PipelineSchedule, InterleavedMicrobatchGroups) {
  // Megatron-Core's microbatch_group_size_per_vp_stage (Llama 3 §3.3.2's N), within its rules
  // (pp <= N <= m, a last group empty or at least pp): every task once, forward before
  // backward, no deadlock; the bubble stays (p-1)/(v m + p - 1).
  const int pp = 4;
  const int v = 2;
  for (int group : {4, 5, 6, 8}) {
    for (int m : {4, 8, 9, 10, 12, 16}) {
      if (group > m || (m % group != 0 && m % group < pp)) continue;
      const auto schedule = make_pipeline_schedule(Schedule::interleaved, group);
      for (int s = 0; s < pp; ++s) {
        SCOPED_TRACE("group " + std::to_string(group) + ", m " + std::to_string(m));
        expect_every_task_once(schedule->order(s, pp, m, v), m, v);
      }
      const auto r = execute(*schedule, pp, m, v, {});
      ASSERT_GT(r.makespan, 0) << group << " " << m;
      EXPECT_NEAR(r.bubble_fraction, 3.0 / (v * m + 3), 1e-9) << group << " " << m;
    }
  }
  // N = p is Narayanan et al.'s order.
  for (int s = 0; s < pp; ++s)
    EXPECT_EQ(make_pipeline_schedule(Schedule::interleaved, pp)->order(s, pp, 8, v),
              make_pipeline_schedule(Schedule::interleaved)->order(s, pp, 8, v));
}

TEST(PipelineSchedule, InterleavedGroupSetsTheWarmup) {
  // The first stage's warm-up: (p - 1) * 2 + (v - 1) * N forwards (Megatron-Core).
  const int pp = 4, v = 3, m = 16;
  for (int group : {4, 8}) {
    const auto order = make_pipeline_schedule(Schedule::interleaved, group)->order(0, pp, m, v);
    const auto first_backward =
        std::find_if(order.begin(), order.end(), [](const PipelineTask& t) { return t.pass == TaskPass::backward; });
    EXPECT_EQ(first_backward - order.begin(), (pp - 1) * 2 + (v - 1) * group + 1) << group;
  }
}

TEST(PipelineSchedule, ZeroBubbleH1BeatsOneFOneB) {
  // Qi et al. Table 2 with T_F = T_B = T_W: 1F1B idles (p-1)(T_F+T_B+T_W) per stage,
  // ZB-H1 (p-1)(T_F+T_B-T_W): a third of it.
  const auto one = execute(*make_pipeline_schedule(Schedule::one_f_one_b), 4, 8, 1, {1, 2, 0});
  const auto zb = execute(*make_pipeline_schedule(Schedule::zb_h1), 4, 8, 1, {1, 1, 1});
  EXPECT_NEAR(one.makespan - 8 * 3.0, 3 * 3.0, 1e-9);
  EXPECT_LT(zb.bubble_fraction, 0.6 * one.bubble_fraction);
  EXPECT_NEAR(zb.makespan - 8 * 3.0, 3 * 1.0, 1e-9);
}

}  // namespace
}  // namespace trainsim
