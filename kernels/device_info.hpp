#pragma once
// What a calibration table records about the GPU it was measured on.

#include <string>

namespace trainsim::kernels {

struct DeviceInfo {
  std::string name;
  int sm_count = 0;
  int sm_clock_khz = 0;
  int memory_clock_khz = 0;
  double memory_bytes = 0;
  int compute_major = 0;
  int compute_minor = 0;
  int driver_version = 0;   ///< CUDA driver API version, e.g. 13000
  int runtime_version = 0;  ///< CUDA runtime version
  int l2_bytes = 0;         ///< L2 cache size: kernels whose data fit in it run above HBM bandwidth
};

/// fp8 tensor cores: compute capability 8.9 (Ada) and 9.0 (Hopper) and later.
bool has_fp8_tensor_cores(const DeviceInfo& info);

/// The current time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_timestamp();

/// The device's properties. Throws std::runtime_error naming the CUDA error if there is
/// no usable GPU.
DeviceInfo query_device(int device);

/// "# key: value" lines, the header of a calibration CSV.
std::string header_lines(const DeviceInfo& info, const std::string& date_utc);

}  // namespace trainsim::kernels
