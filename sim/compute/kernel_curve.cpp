#include "sim/compute/kernel_curve.hpp"

namespace trainsim {

namespace {

std::vector<GridNode> nodes_of(const std::vector<CurveSample>& samples) {
  std::vector<GridNode> nodes;
  nodes.reserve(samples.size());
  for (const CurveSample& s : samples) nodes.push_back({s.coords, {s.time_s, s.flops, s.bytes}, s.line});
  return nodes;
}

std::vector<FitSample> fit_samples_of(const std::vector<CurveSample>& samples) {
  std::vector<FitSample> out;
  out.reserve(samples.size());
  for (const CurveSample& s : samples) out.push_back({s.flops, s.bytes, s.time_s});
  return out;
}

}  // namespace

KernelCurve::KernelCurve(const std::vector<CurveSample>& samples, const std::string& file, const std::string& what)
    : grid_(nodes_of(samples), file, what), fit_(fit_roofline(fit_samples_of(samples))) {}

double KernelCurve::time_s(const std::vector<double>& x, double flops, double bytes) const {
  const std::vector<double> at_edge = grid_.interpolate(x);
  if (grid_.contains(x)) return at_edge[0];
  const double fit_here = fit_.time_s(flops, bytes);
  const double fit_edge = fit_.time_s(at_edge[1], at_edge[2]);
  if (!(fit_edge > 0)) return at_edge[0];
  return at_edge[0] * fit_here / fit_edge;
}

}  // namespace trainsim
