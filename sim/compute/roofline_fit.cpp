#include "sim/compute/roofline_fit.hpp"

#include <Eigen/Dense>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace trainsim {

FittedRoofline fit_roofline(const std::vector<FitSample>& samples) {
  if (samples.empty()) throw std::invalid_argument("fit_roofline: no samples");
  const auto rows = static_cast<Eigen::Index>(samples.size());
  // Columns: 1, flops, bytes, each divided by the measured time (relative residuals), then
  // scaled to unit maximum so that the solve is well conditioned.
  Eigen::MatrixXd a(rows, 3);
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const FitSample& s = samples[static_cast<std::size_t>(i)];
    if (!(s.time_s > 0)) throw std::invalid_argument("fit_roofline: times must be positive");
    a(i, 0) = 1.0 / s.time_s;
    a(i, 1) = s.flops / s.time_s;
    a(i, 2) = s.bytes / s.time_s;
  }
  std::array<double, 3> scale{};
  for (Eigen::Index c = 0; c < 3; ++c) {
    scale[static_cast<std::size_t>(c)] = a.col(c).cwiseAbs().maxCoeff();
    if (scale[static_cast<std::size_t>(c)] > 0) a.col(c) /= scale[static_cast<std::size_t>(c)];
  }

  double best_residual = std::numeric_limits<double>::infinity();
  std::array<double, 3> best{};
  // Non-negative least squares over three unknowns by enumeration: solve on every non-empty
  // subset of the columns, keep the best solution whose coefficients are all >= 0.
  for (unsigned subset = 1; subset < 8; ++subset) {
    std::array<Eigen::Index, 3> cols{};
    Eigen::Index used = 0;
    for (Eigen::Index c = 0; c < 3; ++c) {
      if (((subset >> c) & 1U) && scale[static_cast<std::size_t>(c)] > 0) cols[static_cast<std::size_t>(used++)] = c;
    }
    if (used == 0 || used != static_cast<Eigen::Index>(std::popcount(subset))) continue;
    Eigen::MatrixXd sub(rows, used);
    for (Eigen::Index j = 0; j < used; ++j) sub.col(j) = a.col(cols[static_cast<std::size_t>(j)]);
    const Eigen::VectorXd x = sub.colPivHouseholderQr().solve(ones);
    if ((x.array() < 0).any()) continue;
    const double residual = (sub * x - ones).squaredNorm();
    if (residual < best_residual) {
      best_residual = residual;
      best = {0, 0, 0};
      for (Eigen::Index j = 0; j < used; ++j) {
        const auto c = static_cast<std::size_t>(cols[static_cast<std::size_t>(j)]);
        best[c] = x(j) / scale[c];
      }
    }
  }
  FittedRoofline fit;
  fit.overhead_s = best[0];
  fit.s_per_flop = best[1];
  fit.s_per_byte = best[2];
  fit.rms_relative_error = std::sqrt(best_residual / static_cast<double>(rows));
  return fit;
}

}  // namespace trainsim
