#include "sim/sweep/result_columns.hpp"

#include <cmath>
#include <limits>

#include "sim/step/memory_fit.hpp"
#include "sim/sweep/step_summary.hpp"

namespace trainsim::sweep {

namespace {

constexpr double k_none = std::numeric_limits<double>::quiet_NaN();

bool fit_known(const PointResult& r) {
  return r.simulated() && !std::isnan(r.capacity_bytes);
}

}  // namespace

bool fits(const PointResult& r) {
  return fit_known(r) && memory_fit(metric_value(r, "peak_memory_bytes"), r.capacity_bytes).fits;
}

double headroom_bytes(const PointResult& r) {
  return fit_known(r) ? memory_fit(metric_value(r, "peak_memory_bytes"), r.capacity_bytes).headroom_bytes : k_none;
}

const std::vector<ResultColumn>& result_columns() {
  static const std::vector<ResultColumn> columns = {
      {"fits", [](const PointResult& r) { return fit_known(r) ? std::string(fits(r) ? "true" : "false") : ""; }, {}},
      {"capacity_bytes", {}, [](const PointResult& r) { return fit_known(r) ? r.capacity_bytes : k_none; }},
      {"headroom_bytes", {}, [](const PointResult& r) { return headroom_bytes(r); }},
  };
  return columns;
}

}  // namespace trainsim::sweep
