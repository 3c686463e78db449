#include <cuda_runtime.h>

#include <ctime>
#include <sstream>
#include <stdexcept>

#include "device_info.hpp"

namespace trainsim::kernels {

namespace {
void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}
}  // namespace

DeviceInfo query_device(int device) {
  DeviceInfo info;
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (device < 0 || device >= count) throw std::runtime_error("no CUDA device " + std::to_string(device));
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  info.name = prop.name;
  info.sm_count = prop.multiProcessorCount;
  info.memory_bytes = static_cast<double>(prop.totalGlobalMem);
  info.compute_major = prop.major;
  info.compute_minor = prop.minor;
  // Clock rates left cudaDeviceProp in CUDA 13; they are device attributes.
  check(cudaDeviceGetAttribute(&info.sm_clock_khz, cudaDevAttrClockRate, device), "clock rate");
  check(cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, device), "memory clock rate");
  check(cudaDriverGetVersion(&info.driver_version), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&info.runtime_version), "cudaRuntimeGetVersion");
  check(cudaDeviceGetAttribute(&info.l2_bytes, cudaDevAttrL2CacheSize, device), "L2 cache size");
  return info;
}

bool has_fp8_tensor_cores(const DeviceInfo& info) {
  return info.compute_major > 8 || (info.compute_major == 8 && info.compute_minor >= 9);
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return date;
}

std::string header_lines(const DeviceInfo& info, const std::string& date_utc) {
  std::ostringstream out;
  out << "# gpu: " << info.name << "\n"
      << "# compute_capability: " << info.compute_major << "." << info.compute_minor << "\n"
      << "# sm_count: " << info.sm_count << "\n"
      << "# sm_clock_mhz: " << info.sm_clock_khz / 1000 << "\n"
      << "# memory_clock_mhz: " << info.memory_clock_khz / 1000 << "\n"
      << "# memory_bytes: " << static_cast<long long>(info.memory_bytes) << "\n"
      << "# l2_bytes: " << info.l2_bytes << "\n"
      << "# cuda_driver: " << info.driver_version << "\n"
      << "# cuda_runtime: " << info.runtime_version << "\n"
      << "# date_utc: " << date_utc << "\n";
  return out.str();
}

}  // namespace trainsim::kernels
