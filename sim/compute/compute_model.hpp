#pragma once
// How long an op takes on one GPU. An interface: the datasheet roofline below is the
// default; measured kernel calibration tables (kernels/calibration/) plug in behind it.

#include <string>

#include "models/op.hpp"

namespace trainsim {

class ComputeModel {
 public:
  virtual ~ComputeModel() = default;
  /// Seconds `op` takes on one GPU with nothing else running on it.
  virtual double op_time_s(const Op& op) const = 0;
  /// One line saying where the times come from, for reports.
  virtual std::string description() const = 0;
};

}  // namespace trainsim
