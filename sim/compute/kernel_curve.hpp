#pragma once
// One kernel's time as a function of its shape, from the rows of a calibration table:
// log-space interpolation inside the measured grid (LogGrid) and, outside it, the time at
// the nearest grid point scaled by the fitted roofline's ratio (roofline_fit.hpp):
//
//   time(x) = time_grid(clamp(x)) * fit(flops(x), bytes(x)) / fit(flops(clamp(x)), bytes(clamp(x)))
//
// which is continuous at the edge of the grid and follows the fitted efficiency curve
// beyond it.

#include <string>
#include <vector>

#include "sim/compute/log_grid.hpp"
#include "sim/compute/roofline_fit.hpp"

namespace trainsim {

struct CurveSample {
  std::vector<double> coords;  ///< the grid coordinates (e.g. m, n, k), > 0
  double time_s = 0;           ///< seconds, > 0
  double flops = 0;            ///< FLOP
  double bytes = 0;            ///< bytes
  int line = 0;                ///< source line
};

class KernelCurve {
 public:
  /// Throws InputError (see LogGrid) naming `file` and `what` for an incomplete grid,
  /// duplicates or non-positive coordinates.
  KernelCurve(const std::vector<CurveSample>& samples, const std::string& file, const std::string& what);

  /// Seconds at grid coordinates `x` (each > 0) for a call doing `flops` FLOP and moving
  /// `bytes` bytes (used only outside the grid).
  double time_s(const std::vector<double>& x, double flops, double bytes) const;
  bool contains(const std::vector<double>& x) const { return grid_.contains(x); }
  const FittedRoofline& fit() const { return fit_; }
  const LogGrid& grid() const { return grid_; }

 private:
  LogGrid grid_;  ///< channels: time_s, flops, bytes
  FittedRoofline fit_;
};

}  // namespace trainsim
