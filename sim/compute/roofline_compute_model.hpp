#pragma once
// A roofline over the GPU's peak FLOP/s and HBM bandwidth, with achievable fractions and a
// fixed per-kernel time that makes small kernels inefficient:
//   time = kernel_overhead_s + max(flops / (peak x efficiency), bytes / (hbm x memory_efficiency))

#include "models/training_spec.hpp"
#include "sim/compute/compute_model.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {

struct RooflineParameters {
  double matmul_peak_flops = 0;     ///< dense tensor-core peak for the training precision, FLOP/s
  double gemm_efficiency = 0;       ///< achievable fraction of the peak for large GEMMs
  double attention_efficiency = 0;  ///< fused attention kernels' fraction of the peak
  double hbm_bandwidth_Bps = 0;
  double memory_efficiency = 0;  ///< achievable fraction of HBM bandwidth
  double kernel_overhead_s = 0;  ///< launch and tail time of every kernel
  /// fp8 training: the bf16 peak and GEMM efficiency that time the ops staying in bf16
  /// (attention, the output layer: Op::precision); 0 for other precisions.
  double bf16_peak_flops = 0;
  double bf16_gemm_efficiency = 0;
};

/// The datasheet roofline of a GPU type for a training precision, with the achievable
/// fractions cited in roofline_compute_model.cpp.
RooflineParameters datasheet_roofline(const GpuSpec& gpu, Precision precision);

class RooflineComputeModel final : public ComputeModel {
 public:
  explicit RooflineComputeModel(RooflineParameters parameters);
  double op_time_s(const Op& op) const override;
  std::string description() const override;
  const RooflineParameters& parameters() const { return parameters_; }

 private:
  RooflineParameters parameters_;
};

}  // namespace trainsim
