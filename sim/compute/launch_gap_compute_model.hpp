#pragma once
// A compute model that adds the GPU's idle time between kernels to another's kernel times:
// measured kernel times (a profiler's kernel durations, a table of back-to-back calls with
// the launch amortised) leave out the gap a training step pays between consecutive kernels
// of a stream. Each op pays `gap_s` once per kernel it launches (Op::kernels).

#include <memory>

#include "sim/compute/compute_model.hpp"

namespace trainsim {

class LaunchGapComputeModel final : public ComputeModel {
 public:
  /// `gap_s`: seconds of idle GPU per kernel launched, >= 0.
  LaunchGapComputeModel(std::unique_ptr<ComputeModel> kernels, double gap_s);

  double op_time_s(const Op& op) const override;
  std::string description() const override;
  /// The model that times the kernels themselves.
  const ComputeModel& kernels() const { return *kernels_; }

 private:
  std::unique_ptr<ComputeModel> kernels_;
  double gap_s_;
};

}  // namespace trainsim
