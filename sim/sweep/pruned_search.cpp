#include "sim/sweep/pruned_search.hpp"

#include <algorithm>
#include <numeric>

#include "sim/sweep/step_summary.hpp"

namespace trainsim::sweep {

std::vector<std::size_t> bound_order(const std::vector<double>& bounds) {
  std::vector<std::size_t> order(bounds.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return bounds[a] < bounds[b]; });
  return order;
}

StartGate prune_gate(const SweepPoint& next, const std::vector<PointResult>& results,
                     const std::vector<double>& bounds, int top, int beside) {
  const auto i = static_cast<std::size_t>(next.index);
  const double bound = bounds[i];
  int faster = 0;     // simulated below the bound
  int undecided = 0;  // still running, and could be
  for (std::size_t j = 0; j < i; ++j) {
    if (static_cast<int>(j) == beside) continue;
    const PointResult& r = results[j];
    if (r.status == PointStatus::ok && metric_value(r, "step_time_s") < bound) ++faster;
    if (r.status == PointStatus::pending && bounds[j] < bound) ++undecided;
  }
  if (static_cast<int>(i) == beside) return StartGate::start;
  if (faster >= top) return StartGate::stop;
  return faster + undecided >= top ? StartGate::wait : StartGate::start;
}

}  // namespace trainsim::sweep
