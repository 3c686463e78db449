#include "sim/compute/launch_gap_compute_model.hpp"

#include <cstdio>
#include <utility>

namespace trainsim {

LaunchGapComputeModel::LaunchGapComputeModel(std::unique_ptr<ComputeModel> kernels, double gap_s)
    : kernels_(std::move(kernels)), gap_s_(gap_s) {}

double LaunchGapComputeModel::op_time_s(const Op& op) const {
  return kernels_->op_time_s(op) + op.kernels * gap_s_;
}

std::string LaunchGapComputeModel::description() const {
  char gap[64];
  std::snprintf(gap, sizeof gap, "; %.3g us launch gap per kernel", gap_s_ * 1e6);
  return kernels_->description() + gap;
}

}  // namespace trainsim
