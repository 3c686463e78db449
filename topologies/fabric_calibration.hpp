#pragma once
// A fabric calibration: the collectives of one NVLink domain as the user measured them with
// nccl-tests on their own cluster, fitted by `trainsim calibrate --from-nccl-tests` and named
// by a scenario (`cluster.fabric_calibration = FILE`) or by `trainsim collective
// --fabric-calibration FILE`. Each collective is the alpha-beta form NCCL's own model uses
// (public.md D1: time = latency + bytes / bus bandwidth, tuning.cc) with the latency split as
// SimuMax's measured collectives split it (fixed + per step x steps, protocol_efficiency.hpp):
//
//   time(S, n) = fixed + step x steps(n) + S x busbw factor(n) / bus bandwidth
//
// steps(n) = 2(n - 1) for an all-reduce, n - 1 for the others, 0 for a send/receive.
// A calibration replaces the fabric's built-in measurements of those collectives inside a
// domain (protocol_efficiency.cpp) and stands for whatever NCCL ran there (NVLS included);
// collectives across domains keep the built-in model.
//
// The file is text, one `key = value` a line, `#` comments, a `[collective]` section per
// collective fitted:
//
//   gpu = h100-sxm                 # the GPU preset the logs were measured on
//   [all_reduce]
//   bus_bandwidth_GBps = 369.9     # GB/s = 1e9 B/s
//   fixed_latency_us = 24.5
//   step_latency_us = 0
//   ranks = 8                      # the group sizes measured (informative)

#include <array>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainsim {

/// The collectives a calibration may hold, in nccl-tests' names (all_reduce_perf ...).
enum class CalibratedCollective { all_reduce, all_gather, reduce_scatter, all_to_all, send_recv };
inline constexpr int k_calibrated_collectives = 5;

/// "all_reduce", "all_gather", "reduce_scatter", "alltoall", "sendrecv" (nccl-tests' test names
/// without `_perf`).
std::string_view calibrated_collective_name(CalibratedCollective c);
std::optional<CalibratedCollective> parse_calibrated_collective(std::string_view name);
/// Steps of the latency model on `ranks` GPUs: 2(n - 1), n - 1, or 0 for a send/receive.
double calibrated_steps(CalibratedCollective c, int ranks);

/// One fitted collective.
struct FittedCollective {
  double bus_bandwidth_Bps = 0;  ///< 0: not in the calibration
  double fixed_latency_s = 0;
  double step_latency_s = 0;
  std::vector<int> ranks;  ///< the group sizes of the logs it was fitted to

  bool fitted() const { return bus_bandwidth_Bps > 0; }
  /// The model's time for `bytes` (nccl-tests' size) on `group` GPUs, `bus_factor` the
  /// collective's bus bandwidth factor there, in seconds.
  double time_s(double bytes, int group, double bus_factor, CalibratedCollective c) const;
};

struct FabricCalibration {
  std::string file;  ///< where it was read from (messages, `trainsim check`)
  std::string gpu;   ///< the GPU preset's name (gpu_presets.cpp) the logs were measured on
  std::array<FittedCollective, k_calibrated_collectives> collectives{};

  const FittedCollective& operator[](CalibratedCollective c) const { return collectives[static_cast<size_t>(c)]; }
  FittedCollective& operator[](CalibratedCollective c) { return collectives[static_cast<size_t>(c)]; }
};

/// The file's text (the format above); `comments` are written first, one `# ` line each.
std::string fabric_calibration_text(const FabricCalibration& calibration, const std::vector<std::string>& comments);

/// Reads the format above. Throws InputError naming `file`, the line and the rule for anything
/// else (an unknown key or section, a value that is not a positive number, no collective).
FabricCalibration parse_fabric_calibration(std::istream& in, const std::string& file);

/// parse_fabric_calibration of the file at `path` (read whole, capped at 1 MiB).
FabricCalibration read_fabric_calibration(const std::string& path);

}  // namespace trainsim
