#pragma once
// A search that simulates only the layouts that can still reach its top K (`trainsim plan`):
// each layout has a lower bound on its step time from its costs alone
// (sim/step/step_bound.hpp), the layouts are simulated in order of their bounds, and the
// search stops before the first layout whose bound exceeds the K-th best step simulated so
// far: that layout, and every one after it, takes longer than K layouts already do. The top K
// (by step time; by throughput alike, since every layout trains the same global batch) is
// therefore the exhaustive search's. With several layouts simulated at once, a layout starts
// only once the ones before it that could still decide the stop have finished, so which
// layouts are simulated does not depend on --jobs or timing.

#include <cstddef>
#include <vector>

#include "sim/sweep/point_result.hpp"
#include "sim/sweep/sweep_plan.hpp"
#include "sim/sweep/worker_pool.hpp"

namespace trainsim::sweep {

/// Indices of `bounds` in ascending order of bound (equal bounds keep their order).
std::vector<std::size_t> bound_order(const std::vector<double>& bounds);

/// Whether `next` (bounds[next.index], ascending along the plan) starts: stop once `top`
/// earlier layouts simulated a step time below its bound; wait while earlier layouts still
/// running could make it so; else start. `results` by point index, pending where unknown.
/// Point `beside` (-1: none) is simulated but no candidate for the top (the scenario's own
/// layout, where the search does not try it): it never counts, and its bound may be any.
StartGate prune_gate(const SweepPoint& next, const std::vector<PointResult>& results,
                     const std::vector<double>& bounds, int top, int beside = -1);

}  // namespace trainsim::sweep
