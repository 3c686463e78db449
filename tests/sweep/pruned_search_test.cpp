// The pruned search's gate (sim/sweep/pruned_search.hpp): a layout starts, waits or stops by
// what the layouts before it simulated, never by what is still unknown.

#include <gtest/gtest.h>

#include <vector>

#include "sim/sweep/pruned_search.hpp"
#include "sim/sweep/step_summary.hpp"

namespace trainsim::sweep {
namespace {

PointResult simulated(int index, double step_s) {
  PointResult r;
  r.index = index;
  r.status = PointStatus::ok;
  r.metrics.assign(summary_metric_names().size(), 0.0);
  for (size_t i = 0; i < summary_metric_names().size(); ++i)
    if (summary_metric_names()[i] == "step_time_s") r.metrics[i] = step_s;
  return r;
}

PointResult pending(int index) {
  PointResult r;
  r.index = index;
  return r;
}

SweepPoint point(int index) {
  SweepPoint p;
  p.index = index;
  return p;
}

TEST(PrunedSearch, OrdersByBoundKeepingTies) {
  EXPECT_EQ(bound_order({3.0, 1.0, 2.0, 1.0}), (std::vector<std::size_t>{1, 3, 2, 0}));
}

TEST(PrunedSearch, StopsOnlyWhenTopLayoutsBeatTheBound) {
  const std::vector<double> bounds{1.0, 1.5, 2.0, 3.0};
  // Two simulated, at 1.2 and 2.5 s: for the top 1, the layout bounded at 2.0 cannot win.
  std::vector<PointResult> results{simulated(0, 1.2), simulated(1, 2.5), pending(2), pending(3)};
  EXPECT_EQ(prune_gate(point(2), results, bounds, 1), StartGate::stop);
  // For the top 2, it could (2.0 < 2.5): it starts.
  EXPECT_EQ(prune_gate(point(2), results, bounds, 2), StartGate::start);
  // A tie with the bound is not beaten: equal step times rank by plan order.
  EXPECT_EQ(prune_gate(point(2), {simulated(0, 2.0), simulated(1, 2.5), pending(2), pending(3)}, bounds, 1),
            StartGate::start);
  // Failed and skipped layouts count for nothing.
  results[0].status = PointStatus::failed;
  EXPECT_EQ(prune_gate(point(2), results, bounds, 1), StartGate::start);
}

TEST(PrunedSearch, WaitsForWhatCouldStillDecide) {
  const std::vector<double> bounds{1.0, 1.5, 2.0, 3.0};
  // Layout 1 still running (bound 1.5) could come in under layout 3's bound: wait for it.
  const std::vector<PointResult> results{simulated(0, 3.5), pending(1), pending(2), pending(3)};
  EXPECT_EQ(prune_gate(point(3), results, bounds, 1), StartGate::wait);
  // For the top 3 no outcome of the two before it could stop layout 3: it starts at once.
  EXPECT_EQ(prune_gate(point(3), results, bounds, 3), StartGate::start);
}

// The scenario's own layout, simulated beside the search (`trainsim plan`), is no candidate
// for the top: however fast, it never stops a searched layout, and it always starts.
TEST(PrunedSearch, TheLayoutBesideTheSearchNeverCounts) {
  const std::vector<double> bounds{9.0, 1.0, 2.0};
  const std::vector<PointResult> results{simulated(0, 0.5), simulated(1, 1.5), pending(2)};
  EXPECT_EQ(prune_gate(point(2), results, bounds, 2), StartGate::stop);
  EXPECT_EQ(prune_gate(point(2), results, bounds, 2, 0), StartGate::start);
  EXPECT_EQ(prune_gate(point(0), {pending(0), pending(1), pending(2)}, bounds, 1, 0), StartGate::start);
}

}  // namespace
}  // namespace trainsim::sweep
