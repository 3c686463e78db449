#pragma once
// How long an op takes on one GPU. An interface: the datasheet roofline below is the
// default; measured kernel calibration tables (kernels/calibration/) plug in behind it.

#include <string>

#include "models/op.hpp"

namespace trainsim {

class ComputeModel {
 public:
  virtual ~ComputeModel() = default;
  /// Seconds one kernel-sized `op` takes on one GPU with nothing else running on it (a split
  /// GEMM as if it were not split: use time_s).
  virtual double op_time_s(const Op& op) const = 0;
  /// Seconds `op` takes, a GEMM split into chunks (Op::splits) as that many chunk GEMMs.
  double time_s(const Op& op) const { return op.splits > 1 ? op.splits * op_time_s(gemm_chunk(op)) : op_time_s(op); }
  /// One line saying where the times come from, for reports.
  virtual std::string description() const = 0;
};

}  // namespace trainsim
