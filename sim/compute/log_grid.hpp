#pragma once
// Multilinear interpolation in log space over a complete rectangular grid of measured
// points: log(value) is linear in log(coordinate) along each axis between neighbouring grid
// values. Exact at grid points (the stored value is returned unchanged) and monotone
// between them along every axis (a linear segment in log space maps to a monotone curve).
// Kernel times follow power laws in their shape (time ~ m n k for large GEMMs), which is
// why the interpolation is in log space rather than linear.

#include <cstddef>
#include <string>
#include <vector>

namespace trainsim {

struct GridNode {
  std::vector<double> coords;  ///< one per axis, > 0
  std::vector<double> values;  ///< one per channel, >= 0 (channels are interpolated independently)
  int line = 0;                ///< source line, for error messages
};

class LogGrid {
 public:
  /// Builds the grid from its nodes. `file` and `what` (e.g. "gemm bf16") name it in errors.
  /// Throws InputError(file, "line L", value, rule) for a non-positive coordinate, a negative
  /// value, a duplicate node, or nodes of different lengths; InputError(file, what, point,
  /// rule) for a grid that misses a combination of its axis values.
  LogGrid(const std::vector<GridNode>& nodes, const std::string& file, const std::string& what);

  std::size_t dimensions() const { return axes_.size(); }
  std::size_t channels() const { return channels_; }
  /// The sorted distinct grid values of each axis.
  const std::vector<std::vector<double>>& axes() const { return axes_; }
  /// True if every coordinate of `x` lies within its axis' range.
  bool contains(const std::vector<double>& x) const;
  /// `x` with every coordinate clamped into its axis' range.
  std::vector<double> clamp(const std::vector<double>& x) const;
  /// Interpolated values (one per channel) at `x`, which is clamped into the grid first.
  /// A channel with a zero at any node is interpolated linearly in value instead of log.
  /// Coordinates must be > 0 (throws std::invalid_argument otherwise).
  std::vector<double> interpolate(const std::vector<double>& x) const;

 private:
  std::size_t index_of(const std::vector<std::size_t>& position) const;

  std::vector<std::vector<double>> axes_;
  std::size_t channels_ = 0;
  std::vector<bool> log_channel_;          ///< per channel: interpolate log(value)
  std::vector<std::vector<double>> data_;  ///< per node (row-major over axes): raw values
};

}  // namespace trainsim
