#include "sim/compute/kernel_curve.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/core/portable_math.hpp"

namespace trainsim {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Repeats at the same coordinates -> one sample with the median time, FLOPs and bytes, on the
// first repeat's line; in the order of first appearance (deterministic).
std::vector<CurveSample> merge_repeats(const std::vector<CurveSample>& samples) {
  std::map<std::vector<double>, std::size_t> index;
  std::vector<std::vector<const CurveSample*>> groups;
  for (const CurveSample& s : samples) {
    const auto [it, inserted] = index.emplace(s.coords, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(&s);
  }
  std::vector<CurveSample> merged;
  merged.reserve(groups.size());
  for (const auto& group : groups) {
    CurveSample m = *group.front();
    if (group.size() > 1) {
      std::vector<double> t, f, b;
      for (const CurveSample* s : group) {
        t.push_back(s->time_s);
        f.push_back(s->flops);
        b.push_back(s->bytes);
      }
      m.time_s = median(t);
      m.flops = median(f);
      m.bytes = median(b);
    }
    merged.push_back(std::move(m));
  }
  return merged;
}

// True if the (distinct) points cover every combination of their axis values.
bool complete_grid(const std::vector<CurveSample>& points) {
  if (points.empty()) return false;
  const std::size_t dims = points.front().coords.size();
  double combinations = 1;
  for (std::size_t d = 0; d < dims; ++d) {
    std::vector<double> axis;
    for (const CurveSample& p : points) {
      if (p.coords.size() != dims) return false;
      axis.push_back(p.coords[d]);
    }
    std::sort(axis.begin(), axis.end());
    combinations *= static_cast<double>(std::unique(axis.begin(), axis.end()) - axis.begin());
  }
  return combinations == static_cast<double>(points.size());
}

std::vector<FitSample> fit_samples_of(const std::vector<CurveSample>& samples) {
  std::vector<FitSample> out;
  out.reserve(samples.size());
  for (const CurveSample& s : samples) out.push_back({s.flops, s.bytes, s.time_s});
  return out;
}

}  // namespace

KernelCurve::KernelCurve(const std::vector<CurveSample>& samples, const std::string& file, const std::string& what) {
  const std::vector<CurveSample> points = merge_repeats(samples);
  points_ = points.size();
  for (const CurveSample& s : points) {
    if (!(s.time_s > 0)) continue;
    best_flops_rate_ = std::max(best_flops_rate_, s.flops / s.time_s);
    best_bytes_rate_ = std::max(best_bytes_rate_, s.bytes / s.time_s);
  }
  if (!points.empty()) fit_ = fit_roofline(fit_samples_of(points));
  if (points.empty() || complete_grid(points)) {
    std::vector<GridNode> nodes;
    nodes.reserve(points.size());
    for (const CurveSample& s : points) nodes.push_back({s.coords, {s.time_s, s.flops, s.bytes}, s.line});
    grid_.emplace(nodes, file, what);  // throws for no rows and bad coordinates
    return;
  }
  for (const CurveSample& s : points) residual_of_fit_ = residual_of_fit_ && fit_.time_s(s.flops, s.bytes) > 0;
  std::vector<ScatteredSample> residuals;
  residuals.reserve(points.size());
  for (const CurveSample& s : points) {
    const double base = residual_of_fit_ ? fit_.time_s(s.flops, s.bytes) : 1.0;
    residuals.push_back({s.coords, portable::log(s.time_s / base), s.line});
  }
  scattered_.emplace(std::move(residuals), file, what);
}

bool KernelCurve::contains(const std::vector<double>& x) const {
  return grid_ ? grid_->contains(x) : scattered_->contains(x);
}

double KernelCurve::time_s(const std::vector<double>& x, double flops, double bytes) const {
  double floor_s = 0;  // the best measured rates' time for this work
  if (best_flops_rate_ > 0) floor_s = std::max(floor_s, flops / best_flops_rate_);
  if (best_bytes_rate_ > 0) floor_s = std::max(floor_s, bytes / best_bytes_rate_);
  return std::max(floor_s, interpolated_s(x, flops, bytes));
}

double KernelCurve::interpolated_s(const std::vector<double>& x, double flops, double bytes) const {
  if (scattered_) {
    const double base = residual_of_fit_ ? fit_.time_s(flops, bytes) : 1.0;
    return base * portable::exp(scattered_->interpolate(x));
  }
  const std::vector<double> at_edge = grid_->interpolate(x);
  if (grid_->contains(x)) return at_edge[0];
  const double fit_here = fit_.time_s(flops, bytes);
  const double fit_edge = fit_.time_s(at_edge[1], at_edge[2]);
  if (!(fit_edge > 0)) return at_edge[0];
  // Beyond the grid's largest shapes no kernel gets more efficient than at the edge: the
  // time grows at least with the work (FLOPs, or bytes for a memory-bound kernel).
  const double work_ratio = at_edge[1] > 0 ? flops / at_edge[1] : at_edge[2] > 0 ? bytes / at_edge[2] : 0.0;
  return at_edge[0] * std::max(fit_here / fit_edge, work_ratio);
}

}  // namespace trainsim
