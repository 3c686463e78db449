#pragma once
// One kernel's time as a function of its shape, from the rows of a calibration table.
//
// Repeated rows at the same coordinates (a shape measured twice, the same Llama shape from two
// models, two sources) are merged first: time, FLOPs and bytes each take the median of the
// repeats. Then:
//
// * Complete grid (every combination of the measured axis values present, as trainsim-calibrate
//   writes): log-space multilinear interpolation inside the grid (LogGrid) and, outside it, the
//   time at the nearest grid point scaled by the fitted roofline's ratio (roofline_fit.hpp):
//
//     time(x) = time_grid(clamp(x)) * fit(flops(x), bytes(x)) / fit(flops(clamp(x)), bytes(clamp(x)))
//
//   continuous at the edge of the grid and following the fitted efficiency curve beyond it.
//
// * Scattered samples (public measurements: Llama layer shapes, attention benchmarks, a few
//   GEMMs): the fitted roofline times a residual ratio interpolated in log coordinates by
//   ScatteredLogInterpolator (modified Shepard inverse-distance weighting over the nearest
//   samples):
//
//     time(x) = fit(flops, bytes) * exp(r(x)),   r_i = log(time_i / fit(flops_i, bytes_i))
//
//   exact at the samples (for an op that counts FLOPs and bytes as the row does), continuous,
//   and, away from the samples, the roofline's trend scaled by the nearest samples' residual.
//
// The roofline is fitted to the merged samples in both cases.
//
// In both cases no call is timed faster than the kernel's best measured rate, in FLOP/s and
// in bytes/s: a least-squares roofline absorbs the launch overhead into its other terms and
// its FLOP/s asymptote can exceed what the kernel ever reaches (fitted to H100 GEMMs of up to
// 4096 per dimension it extrapolated a 16384-wide GEMM past the maximum achievable matmul
// rate, public.md D3), while measured efficiency has reached its plateau at the largest
// measured shapes (H100 bf16: 780 TFLOP/s at 4096^3, 794.5 the most any shape reaches):
//
//   time(x) >= max(flops(x) / best FLOP/s, bytes(x) / best bytes/s)
//
// Exact at the samples still (each sample's rate is at most the best).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/compute/log_grid.hpp"
#include "sim/compute/roofline_fit.hpp"
#include "sim/compute/scattered_log_interpolator.hpp"

namespace trainsim {

struct CurveSample {
  std::vector<double> coords;  ///< the interpolation coordinates (e.g. m, n, k), > 0
  double time_s = 0;           ///< seconds, > 0
  double flops = 0;            ///< FLOP
  double bytes = 0;            ///< bytes
  int line = 0;                ///< source line
};

class KernelCurve {
 public:
  /// Throws InputError naming `file` and `what` for non-positive coordinates or samples of
  /// different lengths (log_grid.hpp, scattered_log_interpolator.hpp).
  KernelCurve(const std::vector<CurveSample>& samples, const std::string& file, const std::string& what);

  /// Seconds at coordinates `x` (each > 0) for a call doing `flops` FLOP and moving `bytes`
  /// bytes (used by the roofline outside a grid, and everywhere for scattered samples).
  double time_s(const std::vector<double>& x, double flops, double bytes) const;
  /// True inside the grid's range, or inside the scattered samples' bounding box.
  bool contains(const std::vector<double>& x) const;
  /// True if the samples formed a complete grid (LogGrid), false if scattered.
  bool is_grid() const { return grid_.has_value(); }
  /// Distinct sample points after merging repeats.
  std::size_t points() const { return points_; }
  const FittedRoofline& fit() const { return fit_; }

 private:
  double interpolated_s(const std::vector<double>& x, double flops, double bytes) const;

  std::optional<LogGrid> grid_;                        ///< channels: time_s, flops, bytes
  std::optional<ScatteredLogInterpolator> scattered_;  ///< log(time / fit)
  bool residual_of_fit_ = true;                        ///< false: the fit is 0 somewhere, r = log(time)
  FittedRoofline fit_;
  std::size_t points_ = 0;
  double best_flops_rate_ = 0;  ///< the highest FLOP/s of any sample (0: none does FLOPs)
  double best_bytes_rate_ = 0;  ///< the highest bytes/s of any sample
};

}  // namespace trainsim
