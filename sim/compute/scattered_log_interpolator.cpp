#include "sim/compute/scattered_log_interpolator.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include "sim/core/error.hpp"
#include "sim/core/portable_math.hpp"

namespace trainsim {

namespace {

std::string format_point(const std::vector<double>& coords) {
  std::ostringstream out;
  for (std::size_t i = 0; i < coords.size(); ++i) out << (i ? " x " : "") << coords[i];
  return out.str();
}

}  // namespace

ScatteredLogInterpolator::ScatteredLogInterpolator(std::vector<ScatteredSample> samples, const std::string& file,
                                                   const std::string& what, std::size_t neighbours)
    : neighbours_(std::max<std::size_t>(neighbours, 1)) {
  if (samples.empty()) throw InputError(file, what, "", "no rows to interpolate from");
  dimensions_ = samples.front().coords.size();
  low_.assign(dimensions_, 0);
  high_.assign(dimensions_, 0);
  std::map<std::vector<double>, int> seen;  // coordinates -> line, to reject repeats
  for (const ScatteredSample& s : samples) {
    const std::string key = "line " + std::to_string(s.line);
    if (s.coords.size() != dimensions_) {
      throw InputError(file, key, what, "every row of a kernel must have the same fields");
    }
    for (const double c : s.coords) {
      if (!(c > 0) || !std::isfinite(c))
        throw InputError(file, key, format_point(s.coords), "shape fields must be > 0");
    }
    if (!std::isfinite(s.value)) throw InputError(file, key, std::to_string(s.value), "values must be finite");
    const auto [it, inserted] = seen.emplace(s.coords, s.line);
    if (!inserted) {
      throw InputError(file, key, format_point(s.coords),
                       what + ": repeated point (first on line " + std::to_string(it->second) + ")");
    }
    std::vector<double> u(dimensions_);
    for (std::size_t d = 0; d < dimensions_; ++d) u[d] = portable::log(s.coords[d]);
    for (std::size_t d = 0; d < dimensions_; ++d) {
      low_[d] = log_coords_.empty() ? u[d] : std::min(low_[d], u[d]);
      high_[d] = log_coords_.empty() ? u[d] : std::max(high_[d], u[d]);
    }
    log_coords_.push_back(std::move(u));
    values_.push_back(s.value);
  }
}

bool ScatteredLogInterpolator::contains(const std::vector<double>& x) const {
  if (x.size() != dimensions_) return false;
  for (std::size_t d = 0; d < dimensions_; ++d) {
    if (!(x[d] > 0)) return false;
    const double u = portable::log(x[d]);
    if (u < low_[d] || u > high_[d]) return false;
  }
  return true;
}

double ScatteredLogInterpolator::interpolate(const std::vector<double>& x) const {
  if (x.size() != dimensions_) throw std::invalid_argument("ScatteredLogInterpolator: wrong number of coordinates");
  std::vector<double> u(dimensions_);
  for (std::size_t d = 0; d < dimensions_; ++d) {
    if (!(x[d] > 0)) throw std::invalid_argument("ScatteredLogInterpolator: coordinates must be > 0");
    u[d] = portable::log(x[d]);
  }
  const std::size_t count = log_coords_.size();
  if (count == 1) return values_.front();
  // (distance, sample index), sorted: ties are broken by sample order, so the result does not
  // depend on the sort's implementation.
  std::vector<std::pair<double, std::size_t>> order(count);
  for (std::size_t i = 0; i < count; ++i) {
    double sum = 0;
    for (std::size_t d = 0; d < dimensions_; ++d) {
      const double diff = u[d] - log_coords_[i][d];
      sum += diff * diff;
    }
    if (sum == 0) return values_[i];  // exact at a sample
    order[i] = {std::sqrt(sum), i};
  }
  const std::size_t k = std::min(neighbours_, count - 1);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k + 1), order.end());
  const double radius = order[k].first;  // the (K+1)-th nearest
  double weight_sum = 0;
  double value_sum = 0;
  for (std::size_t j = 0; j < k; ++j) {
    const double distance = order[j].first;
    if (distance >= radius) break;
    const double r = (radius - distance) / (radius * distance);
    const double w = r * r;
    weight_sum += w;
    value_sum += w * values_[order[j].second];
  }
  if (weight_sum > 0) return value_sum / weight_sum;
  // All of the K+1 nearest are equally far: their mean.
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t j = 0; j <= k && order[j].first == radius; ++j, ++n) sum += values_[order[j].second];
  return sum / static_cast<double>(n);
}

}  // namespace trainsim
