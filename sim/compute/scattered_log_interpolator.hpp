#pragma once
// Interpolation of one value from scattered samples in log coordinates: modified Shepard
// inverse-distance weighting over the nearest samples (Franke & Nielson 1980, "Smooth
// interpolation of large sets of scattered data", Int. J. Numer. Meth. Eng. 15; Renka 1988,
// ACM TOMS 14, "Multivariate interpolation of large sets of scattered data").
//
// Public kernel timings come as scattered shapes (the Llama layers Vidur profiles, the
// attention shapes cuDNN benchmarks, a few GEMMs), not as the complete grid LogGrid needs.
// With u = (log x_1, ..., log x_d), the distances d_i = |u - u_i| (Euclidean) and R the
// distance to the (K+1)-th nearest sample,
//
//   w_i = ((R - d_i)_+ / (R d_i))^2,   value(u) = sum_i w_i v_i / sum_i w_i
//
// which is
//   * exact at samples (d_i = 0 returns v_i),
//   * continuous: a sample enters or leaves the K nearest exactly where its weight is 0
//     (d_i = R), and R is a continuous function of u,
//   * local: only the K nearest samples count, so a far sample does not pull the value,
//   * bounded by the values of those samples (a convex combination), and
//   * deterministic: ties in distance are broken by sample order.
// Where all K+1 nearest samples are equally far (a set of measure zero, e.g. the centre
// between two samples with K = 1) the weights vanish and the mean of those samples is
// returned.
//
// KernelCurve (kernel_curve.hpp) interpolates with it the log ratio of measured time to a
// fitted roofline, so that the roofline carries the trend between and beyond the samples
// and this class only the residual.

#include <cstddef>
#include <string>
#include <vector>

namespace trainsim {

struct ScatteredSample {
  std::vector<double> coords;  ///< one per axis, > 0 (interpolated over their logarithms)
  double value = 0;            ///< the value at the sample (any finite number)
  int line = 0;                ///< source line, for error messages
};

class ScatteredLogInterpolator {
 public:
  /// Number of nearest samples weighted by default: the corners of a cell of a 3-D grid.
  static constexpr std::size_t k_default_neighbours = 8;

  /// `file` and `what` name the data in errors. Throws InputError(file, "line L", point, rule)
  /// for a non-positive coordinate, a non-finite value, samples of different lengths, or two
  /// samples at the same coordinates (merge repeats before: kernel_curve.cpp takes their
  /// median); InputError(file, what, "", rule) for no samples. `neighbours` >= 1.
  ScatteredLogInterpolator(std::vector<ScatteredSample> samples, const std::string& file, const std::string& what,
                           std::size_t neighbours = k_default_neighbours);

  std::size_t dimensions() const { return dimensions_; }
  std::size_t size() const { return log_coords_.size(); }
  /// The value at `x` (each coordinate > 0; throws std::invalid_argument otherwise).
  double interpolate(const std::vector<double>& x) const;
  /// True if `x` lies within the samples' bounding box.
  bool contains(const std::vector<double>& x) const;

 private:
  std::size_t dimensions_ = 0;
  std::size_t neighbours_ = k_default_neighbours;
  std::vector<std::vector<double>> log_coords_;  ///< per sample
  std::vector<double> values_;                   ///< per sample
  std::vector<double> low_, high_;               ///< bounding box, per axis
};

}  // namespace trainsim
