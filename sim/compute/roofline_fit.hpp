#pragma once
// A roofline with an efficiency curve, fitted to a calibration table's rows by least
// squares (Eigen). Used to extrapolate kernel times to shapes outside the measured grid.
//
// Model (additive roofline; the max() roofline of Williams, Waterman & Patterson, CACM
// 2009, with the launch latency and the compute and memory phases summed so that it is
// smooth and linear in its parameters):
//
//   time_s = overhead_s + flops * s_per_flop + bytes * s_per_byte
//
// so achieved FLOP/s = flops / time_s rises with size towards 1 / s_per_flop: the
// efficiency curve eff(flops, bytes) = (flops * s_per_flop) / time_s.
// Fitted by minimising the sum of squared *relative* residuals ((model - t) / t)^2, so that
// microsecond kernels weigh as much as second-long ones, with all three coefficients
// constrained to be >= 0 (every subset of them is solved and the best non-negative one kept).

#include <vector>

namespace trainsim {

struct FitSample {
  double flops = 0;   ///< FLOP
  double bytes = 0;   ///< bytes
  double time_s = 0;  ///< seconds, > 0
};

struct FittedRoofline {
  double overhead_s = 0;          ///< seconds per call, >= 0
  double s_per_flop = 0;          ///< seconds per FLOP, >= 0 (1 / achievable FLOP/s)
  double s_per_byte = 0;          ///< seconds per byte, >= 0 (1 / achievable bytes/s)
  double rms_relative_error = 0;  ///< of the fit over its samples

  /// Seconds for a call doing `flops` FLOP and moving `bytes` bytes.
  double time_s(double flops, double bytes) const { return overhead_s + flops * s_per_flop + bytes * s_per_byte; }
};

/// Fits the model above. Throws std::invalid_argument if `samples` is empty or a time is
/// not positive. Deterministic: the same samples give bit-identical coefficients.
FittedRoofline fit_roofline(const std::vector<FitSample>& samples);

}  // namespace trainsim
