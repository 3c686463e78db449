#pragma once
// A GPU type's datasheet figures, as a value type (SI units).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/training_spec.hpp"

namespace trainsim {

struct GpuSpec {
  std::string name;
  double memory_bytes = 0;     ///< HBM capacity visible to CUDA
  double peak_bf16_flops = 0;  ///< dense, FLOP/s
  double peak_fp8_flops = 0;   ///< dense, FLOP/s; 0 = no fp8 tensor cores
  double peak_tf32_flops = 0;  ///< dense, FLOP/s
  /// dense, FLOP/s, with MX block scaling (OCP microscaling, 32-element blocks); 0 = no MX
  /// tensor cores (before Blackwell). The datasheets list it with FP8.
  double peak_mxfp8_flops = 0;
  double peak_nvfp4_flops = 0;  ///< dense, FLOP/s, NVFP4 (16-element blocks); 0 = none
  double hbm_bandwidth_Bps = 0;
  double nvlink_bandwidth_Bps = 0;  ///< per direction, all links of one GPU
  /// Streaming multiprocessors; 0 where no source at hand states them.
  int sms = 0;
  double tdp_w = 0;                 ///< power while computing
  double comm_power_w = 0;          ///< power while only communicating
  double idle_power_w = 0;          ///< power while waiting
  /// A user's override (cluster.tp_overlap_slowdown): how much slower, as a fraction, GEMMs
  /// beside overlapped TP communication run on top of what the userbuffers kernels take from
  /// them (sim/step/tp_overlap_cost.hpp). 0, and no preset sets it: the mechanism alone.
  double tp_overlap_slowdown = 0;
  /// The GPU's architecture by NVIDIA's name (ampere, hopper, blackwell): with the cluster's
  /// host it picks the validation family (sim/scenario/accuracy_caveats.cpp).
  std::string architecture;
  /// The NVLink generation its links are (3: A100, 4: H100/H200/H800, 5: Blackwell), which
  /// picks the measured NVLink collective and dispatcher rates (topologies/protocol_efficiency.cpp,
  /// sim/step/dispatcher_rates.cpp); 0: none measured, collectives at line rate.
  int nvlink_generation = 0;
  /// The kernel table the GPU's compute is timed by (kernels/calibration/NAME.csv): its own
  /// when empty; a GPU that differs from another only off its SMs and HBM names that one.
  std::string calibration_gpu;
  const std::string& table_gpu() const { return calibration_gpu.empty() ? name : calibration_gpu; }
  /// Every figure equal (the preset files against the presets they replaced).
  bool operator==(const GpuSpec&) const = default;
  bool has_fp8() const { return peak_fp8_flops > 0; }
  bool has_mxfp8() const { return peak_mxfp8_flops > 0; }
  bool has_nvfp4() const { return peak_nvfp4_flops > 0; }
  /// The dense tensor-core peak of the Linear GEMMs in `precision` (fp32: TF32).
  double peak_flops(Precision precision) const {
    switch (precision) {
      case Precision::fp8:
        return peak_fp8_flops;
      case Precision::mxfp8:
        return peak_mxfp8_flops;
      case Precision::nvfp4:
        return peak_nvfp4_flops;
      case Precision::fp32:
        return peak_tf32_flops;
      default:
        return peak_bf16_flops;
    }
  }
};

/// The GPU preset of that name (the data folder's presets/gpus/NAME.ini), or nothing: defined
/// by sim/scenario/preset_library.cpp, which reads the files (link trainsim::scenario).
std::optional<GpuSpec> gpu_preset(std::string_view name);
std::vector<std::string> gpu_preset_names();

}  // namespace trainsim
