#include "sim/compute/log_grid.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sim/core/error.hpp"
#include "sim/core/portable_math.hpp"

namespace trainsim {

namespace {

std::string line_key(int line) {
  return "line " + std::to_string(line);
}

std::string format_point(const std::vector<double>& coords) {
  std::ostringstream out;
  for (std::size_t i = 0; i < coords.size(); ++i) out << (i ? " x " : "") << coords[i];
  return out.str();
}

}  // namespace

LogGrid::LogGrid(const std::vector<GridNode>& nodes, const std::string& file, const std::string& what) {
  if (nodes.empty()) throw InputError(file, what, "", "no rows to build a grid from");
  const std::size_t dims = nodes.front().coords.size();
  channels_ = nodes.front().values.size();
  axes_.assign(dims, {});
  for (const GridNode& node : nodes) {
    if (node.coords.size() != dims || node.values.size() != channels_) {
      throw InputError(file, line_key(node.line), what, "every row of a kernel must have the same fields");
    }
    for (double c : node.coords) {
      if (!(c > 0)) throw InputError(file, line_key(node.line), format_point(node.coords), "shape fields must be > 0");
    }
    for (double v : node.values) {
      if (!(v >= 0)) throw InputError(file, line_key(node.line), std::to_string(v), "values must be >= 0");
    }
    for (std::size_t d = 0; d < dims; ++d) axes_[d].push_back(node.coords[d]);
  }
  std::size_t total = 1;
  for (auto& axis : axes_) {
    std::sort(axis.begin(), axis.end());
    axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
    total *= axis.size();
  }
  data_.assign(total, {});
  std::vector<bool> present(total, false);
  std::vector<int> line_of(total, 0);
  log_channel_.assign(channels_, true);
  for (const GridNode& node : nodes) {
    std::vector<std::size_t> position(dims);
    for (std::size_t d = 0; d < dims; ++d) {
      position[d] = static_cast<std::size_t>(std::lower_bound(axes_[d].begin(), axes_[d].end(), node.coords[d]) -
                                             axes_[d].begin());
    }
    const std::size_t i = index_of(position);
    if (present[i]) {
      throw InputError(file, line_key(node.line), format_point(node.coords),
                       what + ": duplicate grid point (first on line " + std::to_string(line_of[i]) + ")");
    }
    present[i] = true;
    line_of[i] = node.line;
    data_[i] = node.values;
    for (std::size_t c = 0; c < channels_; ++c) {
      if (node.values[c] == 0) log_channel_[c] = false;
    }
  }
  for (std::size_t i = 0; i < total; ++i) {
    if (present[i]) continue;
    std::vector<double> missing(dims);
    std::size_t rest = i;
    for (std::size_t d = dims; d-- > 0;) {
      missing[d] = axes_[d][rest % axes_[d].size()];
      rest /= axes_[d].size();
    }
    throw InputError(file, what, format_point(missing),
                     "the grid is incomplete: rows must cover every combination of the measured shape values, "
                     "and this one is missing");
  }
}

std::size_t LogGrid::index_of(const std::vector<std::size_t>& position) const {
  std::size_t i = 0;
  for (std::size_t d = 0; d < axes_.size(); ++d) i = i * axes_[d].size() + position[d];
  return i;
}

bool LogGrid::contains(const std::vector<double>& x) const {
  for (std::size_t d = 0; d < axes_.size(); ++d) {
    if (x[d] < axes_[d].front() || x[d] > axes_[d].back()) return false;
  }
  return true;
}

std::vector<double> LogGrid::clamp(const std::vector<double>& x) const {
  std::vector<double> c(x);
  for (std::size_t d = 0; d < axes_.size(); ++d) c[d] = std::clamp(x[d], axes_[d].front(), axes_[d].back());
  return c;
}

std::vector<double> LogGrid::interpolate(const std::vector<double>& point) const {
  if (point.size() != axes_.size()) throw std::invalid_argument("LogGrid: wrong number of coordinates");
  for (double c : point) {
    if (!(c > 0)) throw std::invalid_argument("LogGrid: coordinates must be > 0");
  }
  const std::vector<double> x = clamp(point);
  const std::size_t dims = axes_.size();
  // Per axis: the segment [lo, lo + 1] holding x and the position t in it (log scale).
  // t is exactly 0 or 1 at grid values, so grid points return their stored values.
  std::vector<std::size_t> lo(dims);
  std::vector<double> t(dims);
  bool on_node = true;
  std::vector<std::size_t> node(dims);
  for (std::size_t d = 0; d < dims; ++d) {
    const std::vector<double>& axis = axes_[d];
    if (axis.size() == 1) {
      lo[d] = 0;
      t[d] = 0;
      node[d] = 0;
      continue;
    }
    std::size_t i = static_cast<std::size_t>(std::upper_bound(axis.begin(), axis.end(), x[d]) - axis.begin());
    i = std::min(std::max<std::size_t>(i, 1), axis.size() - 1) - 1;
    lo[d] = i;
    if (x[d] == axis[i]) {
      t[d] = 0;
      node[d] = i;
    } else if (x[d] == axis[i + 1]) {
      t[d] = 1;
      node[d] = i + 1;
    } else {
      t[d] = (portable::log(x[d]) - portable::log(axis[i])) / (portable::log(axis[i + 1]) - portable::log(axis[i]));
      on_node = false;
    }
  }
  if (on_node) return data_[index_of(node)];

  std::vector<double> out(channels_, 0.0);
  const std::size_t corners = std::size_t{1} << dims;
  std::vector<std::size_t> position(dims);
  for (std::size_t corner = 0; corner < corners; ++corner) {
    double weight = 1;
    for (std::size_t d = 0; d < dims; ++d) {
      const bool upper = (corner >> d) & 1U;
      if (axes_[d].size() == 1 && upper) weight = 0;
      position[d] = lo[d] + (upper ? 1 : 0);
      weight *= upper ? t[d] : 1 - t[d];
    }
    if (weight == 0) continue;
    const std::vector<double>& v = data_[index_of(position)];
    for (std::size_t c = 0; c < channels_; ++c) out[c] += weight * (log_channel_[c] ? portable::log(v[c]) : v[c]);
  }
  for (std::size_t c = 0; c < channels_; ++c) {
    if (log_channel_[c]) out[c] = portable::exp(out[c]);
  }
  return out;
}

}  // namespace trainsim
