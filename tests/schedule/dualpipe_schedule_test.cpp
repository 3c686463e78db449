// DualPipe's order (sim/schedule/dualpipe_schedule.hpp): every task once, in the phases of
// deepseek-ai/DualPipe dualpipe/dualpipe.py @ 3da1bbe, and on equal stages its bubble is
// DeepSeek-V3 Table 2's against 1F1B's. The player here is a test oracle only: the product
// runs schedules on SimGrid (sim/engine; tests/step/dualpipe_step_test.cpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "models/pipeline_inflight.hpp"
#include "sim/schedule/pipeline_schedule.hpp"

namespace trainsim {
namespace {

struct Costs {
  double forward = 1, backward = 2, weight = 1;  ///< backward: input and weight gradients
};

struct Played {
  double makespan = 0;
  std::vector<double> busy;  ///< per stage
  /// The largest idle time of a stage: makespan - busy.
  double bubble() const {
    double most = 0;
    for (double b : busy) most = std::max(most, makespan - b);
    return most;
  }
};

// Plays every stage's units in order, each as soon as its inputs are there (the schedule's
// path: path_position, stage_at), a pair as its forward then its backward; a backward's
// input gradients leave after its weight gradients where the schedule runs them with it.
Played play(const PipelineSchedule& schedule, int pp, int m, Costs c, bool pairs = true) {
  using Key = std::tuple<int, int, TaskPass>;  // micro-batch, path position, pass
  const int v = 1;
  const int length = schedule.path_length(pp, v);
  const bool split = schedule.splits_weight_gradients();
  std::map<Key, double> done;
  std::vector<std::vector<ScheduledUnit>> units;
  for (int s = 0; s < pp; ++s)
    units.push_back(schedule.units(s, pp, m, v, [&](const PipelineTask&) { return pairs; }));
  std::vector<size_t> next(static_cast<size_t>(pp), 0);
  Played r;
  r.busy.assign(static_cast<size_t>(pp), 0.0);
  std::vector<double> free(static_cast<size_t>(pp), 0.0);
  const auto input = [&](int s, const PipelineTask& t) -> std::optional<Key> {
    const int p = schedule.path_position(s, t.chunk, pp);
    if (t.pass == TaskPass::forward && p > 0) return Key{t.microbatch, p - 1, TaskPass::forward};
    if (t.pass == TaskPass::backward && p < length - 1) return Key{t.microbatch, p + 1, TaskPass::backward};
    return std::nullopt;
  };
  const auto seconds = [&](const PipelineTask& t) {
    if (t.pass == TaskPass::forward) return c.forward;
    if (t.pass == TaskPass::weight) return c.weight;
    return split && !schedule.runs_weight_with(t) ? c.backward - c.weight : c.backward;
  };
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < pp; ++s) {
      const auto si = static_cast<size_t>(s);
      while (next[si] < units[si].size()) {
        const ScheduledUnit& u = units[si][next[si]];
        double start = free[si];
        bool ready = true;
        for (const PipelineTask* t : {&u.task, u.beside ? &*u.beside : nullptr}) {
          if (t == nullptr) continue;
          const auto key = input(s, *t);
          if (!key) continue;
          const auto it = done.find(*key);
          if (it == done.end()) ready = false;
          else start = std::max(start, it->second);
        }
        if (!ready) break;
        double end = start;
        for (const PipelineTask* t : {&u.task, u.beside ? &*u.beside : nullptr}) {
          if (t == nullptr) continue;
          end += seconds(*t);
          done[{t->microbatch, schedule.path_position(s, t->chunk, pp), t->pass}] = end;
        }
        r.busy[si] += end - start;
        free[si] = end;
        ++next[si];
        progress = true;
      }
    }
  }
  for (int s = 0; s < pp; ++s) EXPECT_EQ(next[static_cast<size_t>(s)], units[static_cast<size_t>(s)].size()) << "deadlock";
  r.makespan = *std::max_element(free.begin(), free.end());
  return r;
}

TEST(DualPipeSchedule, EveryTaskOnceInItsDirection) {
  const auto schedule = make_pipeline_schedule(Schedule::dualpipe);
  for (int pp : {2, 4, 8}) {
    for (int m : {2 * pp, 2 * pp + 2, 20}) {
      if (m < 2 * pp) continue;
      for (int s = 0; s < pp; ++s) {
        const std::vector<PipelineTask> order = schedule->order(s, pp, m, 1);
        SCOPED_TRACE("pp " + std::to_string(pp) + " m " + std::to_string(m) + " stage " + std::to_string(s));
        int weights = 0, apart = 0;
        for (int mb = 0; mb < m; ++mb) {
          const int chunk = mb < m / 2 ? 0 : 1;  // the first half enters at rank 0
          const auto at = [&](TaskPass pass) {
            return std::find_if(order.begin(), order.end(), [&](const PipelineTask& t) {
              return t.microbatch == mb && t.pass == pass;
            });
          };
          ASSERT_NE(at(TaskPass::forward), order.end());
          ASSERT_NE(at(TaskPass::backward), order.end());
          EXPECT_EQ(at(TaskPass::forward)->chunk, chunk);
          EXPECT_EQ(at(TaskPass::backward)->chunk, chunk);
          EXPECT_LT(at(TaskPass::forward), at(TaskPass::backward));
          if (at(TaskPass::backward)->weight_apart) {
            ++apart;
            ASSERT_NE(at(TaskPass::weight), order.end());
            EXPECT_LT(at(TaskPass::backward), at(TaskPass::weight));
          }
        }
        for (const PipelineTask& t : order) weights += t.pass == TaskPass::weight;
        EXPECT_EQ(order.size(), static_cast<size_t>(2 * m + weights));
        EXPECT_EQ(weights, apart);
        // dualpipe.py's zero-bubble chunks (steps 3 and 7, and the later half of step 6): on
        // 8 ranks, 3 + 3 + 1 on the end ranks, 0 + 0 + 4 on the middle ones.
        if (pp == 8 && (s == 0 || s == 7)) {
          EXPECT_EQ(apart, 7);
        }
        if (pp == 8 && (s == 3 || s == 4)) {
          EXPECT_EQ(apart, 4);
        }
      }
    }
  }
}

TEST(DualPipeSchedule, PeakActivationsArePpPlusOneChunks) {
  // DeepSeek-V3 Table 2: PP + 1 activations per device (1F1B: PP), counted in chunks.
  const auto schedule = make_pipeline_schedule(Schedule::dualpipe);
  for (int pp : {2, 4, 8}) {
    for (int s = 0; s < pp; ++s) {
      int inflight = 0, peak = 0;
      for (const PipelineTask& t : schedule->order(s, pp, 4 * pp, 1)) {
        if (t.pass == TaskPass::forward) peak = std::max(peak, ++inflight);
        if (t.pass == TaskPass::backward) --inflight;
      }
      EXPECT_EQ(peak, pp + 1) << "pp " << pp << " stage " << s;
      EXPECT_DOUBLE_EQ(inflight_microbatches(Schedule::dualpipe, pp, s, 4 * pp, 1), (pp + 1) / 2.0);
    }
  }
}

TEST(DualPipeSchedule, BubbleIsTableTwos) {
  // DeepSeek-V3 Table 2 (and the DualPipe README): 1F1B idles (PP - 1)(F + B), DualPipe
  // (PP/2 - 1)(F&B + B - 3W), F&B = F + B here (nothing to overlap in this oracle). The
  // formula counts as the zero-bubble papers do, a forward, an input gradient and a weight
  // gradient alike (Qi et al. 2024): there the order gives it to the unit.
  for (const double unit : {1.0, 2.5}) {
    const Costs c{unit, 2 * unit, unit};
    for (int pp : {2, 4, 8, 16}) {
      for (int m : {2 * pp, 2 * pp + 2, 4 * pp}) {
        const Played one = play(*make_pipeline_schedule(Schedule::one_f_one_b), pp, m, c, false);
        EXPECT_NEAR(one.bubble(), (pp - 1) * (c.forward + c.backward), 1e-9);
        const Played dual = play(*make_pipeline_schedule(Schedule::dualpipe), pp, m, c);
        const double table = (pp / 2 - 1) * (c.forward + c.backward + c.backward - 3 * c.weight);
        EXPECT_NEAR(dual.bubble(), table, 1e-9) << "pp " << pp << " m " << m;
        // The same work as 1F1B's, in less time.
        EXPECT_NEAR(dual.makespan - dual.bubble(), one.makespan - one.bubble(), 1e-9);
      }
    }
  }
  // Passes of other sizes: between the formula's terms, never above 1F1B's bubble.
  for (const Costs c : {Costs{1, 2, 0.5}, Costs{1, 3, 1.5}, Costs{1, 1, 0.5}}) {
    const int pp = 8, m = 32;
    const Played one = play(*make_pipeline_schedule(Schedule::one_f_one_b), pp, m, c, false);
    const Played dual = play(*make_pipeline_schedule(Schedule::dualpipe), pp, m, c);
    const double table = (pp / 2 - 1) * (c.forward + c.backward + c.backward - 3 * c.weight);
    EXPECT_LT(dual.bubble(), 0.5 * one.bubble());
    EXPECT_NEAR(dual.bubble(), table, 0.35 * table) << c.forward << " " << c.backward << " " << c.weight;
  }
}

TEST(DualPipeSchedule, UnpairedWhereTheActorMayNotPair) {
  // A task the actor may not pair (a backward reducing its gradients as it runs) runs alone:
  // the same tasks in the same order.
  const auto schedule = make_pipeline_schedule(Schedule::dualpipe);
  const auto no_last = [](const PipelineTask& t) { return !(t.pass == TaskPass::backward && t.microbatch == 7); };
  for (int s = 0; s < 4; ++s) {
    std::vector<PipelineTask> flat;
    for (const ScheduledUnit& u : schedule->units(s, 4, 8, 1, no_last)) {
      flat.push_back(u.task);
      if (u.beside) {
        flat.push_back(*u.beside);
        EXPECT_NE(u.beside->microbatch, 7);
        EXPECT_NE(u.task.pass, u.beside->pass);
        EXPECT_NE(u.task.microbatch, u.beside->microbatch);
      }
    }
    EXPECT_EQ(flat, schedule->order(s, 4, 8, 1));
  }
}

}  // namespace
}  // namespace trainsim
