#pragma once
// A fabric calibration: the collectives of the user's own cluster as they measured them with
// nccl-tests, by tier (inside one NVLink domain; across domains, over the scale-out network), fitted by `trainsim calibrate --from-nccl-tests` and named
// by a scenario (`cluster.fabric_calibration = FILE`) or by `trainsim collective
// --fabric-calibration FILE`. Each collective is the alpha-beta form NCCL's own model uses
// (public.md D1: time = latency + bytes / bus bandwidth, tuning.cc) with the latency split as
// SimuMax's measured collectives split it (fixed + per step x steps, protocol_efficiency.hpp):
//
//   time(S, n) = fixed + step x steps(n) + S x busbw factor(n) / bus bandwidth
//
// steps(n) = 2(n - 1) for an all-reduce, n - 1 for the others, 0 for a send/receive.
// A calibration replaces the fabric's built-in measurements of those collectives inside a
// domain (protocol_efficiency.cpp) and stands for whatever NCCL ran there (NVLS included).
//
// The scale-out tier, fitted to logs whose ranks span d NVLink domains of g GPUs each (multi-
// node nccl-tests: 2 DGX H100 over InfiniBand, 2 NVL72 racks), is the same form with the ring's
// steps split as NCCL's ring model splits them (nccl_latency.hpp: steps across nodes): the
// steps inside a domain pay the file's in-domain per-step latency (0 where it has no in-domain
// tier for the collective: the file stands alone), those between domains the scale-out one,
//
//   time(S, n, d) = fixed + step x steps_out(d) + in-domain step x (steps(n) - steps_out(d))
//                   + S x busbw factor(n) / bus bandwidth
//
// steps_out(d) = 2(d - 1) for an all-reduce, d - 1 for the others, 0 for a send/receive. Its
// bus bandwidth is that of groups with `ranks_per_domain` GPUs in each domain; other groups
// across domains scale it with the NICs they cross (a ring: one NIC per channel, as many
// channels as GPUs per domain up to the domain's NICs, NCCL's ring model; an all-to-all or a
// send/receive: each rank's share of its domain's NICs). Collectives across domains that the
// file does not hold keep the built-in model.
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
//   [scale_out.all_reduce]         # across NVLink domains
//   bus_bandwidth_GBps = 352.1
//   fixed_latency_us = 41
//   step_latency_us = 6.5          # per step between domains
//   ranks_per_domain = 8           # the measured groups' GPUs per domain
//   domains = 2, 4                 # the domain counts measured (informative)

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
/// The steps of those between NVLink domains, on `domains` domains: 2(d - 1), d - 1, or 0.
double calibrated_scale_out_steps(CalibratedCollective c, int domains);

/// The tiers of a calibration: inside one NVLink domain, across domains.
enum class FabricTier { in_domain, scale_out };

/// One fitted collective.
struct FittedCollective {
  double bus_bandwidth_Bps = 0;  ///< 0: not in the calibration
  double fixed_latency_s = 0;
  double step_latency_s = 0;
  std::vector<int> ranks;  ///< the group sizes of the logs it was fitted to
  /// The scale-out tier only: GPUs per domain of the groups measured, and their domain counts.
  int ranks_per_domain = 0;
  std::vector<int> domains{};

  bool fitted() const { return bus_bandwidth_Bps > 0; }
  /// The model's time for `bytes` (nccl-tests' size) on `group` GPUs, `bus_factor` the
  /// collective's bus bandwidth factor there, in seconds.
  double time_s(double bytes, int group, double bus_factor, CalibratedCollective c) const;
  /// The scale-out tier's time on `group` GPUs over `domains` NVLink domains, the steps inside
  /// a domain at `in_domain_step_s` each (the form above), in seconds.
  double scale_out_time_s(double bytes, int group, int domain_count, double bus_factor, CalibratedCollective c,
                          double in_domain_step_s) const;
};

struct FabricCalibration {
  std::string file;  ///< where it was read from (messages, `trainsim check`)
  std::string gpu;   ///< the GPU preset's name (topologies/presets/gpus/) the logs were measured on
  std::array<FittedCollective, k_calibrated_collectives> collectives{};  ///< inside one NVLink domain
  std::array<FittedCollective, k_calibrated_collectives> scale_out{};    ///< across NVLink domains

  const FittedCollective& operator[](CalibratedCollective c) const { return collectives[static_cast<size_t>(c)]; }
  FittedCollective& operator[](CalibratedCollective c) { return collectives[static_cast<size_t>(c)]; }
  const FittedCollective& at(FabricTier t, CalibratedCollective c) const {
    return (t == FabricTier::in_domain ? collectives : scale_out)[static_cast<size_t>(c)];
  }
  FittedCollective& at(FabricTier t, CalibratedCollective c) {
    return (t == FabricTier::in_domain ? collectives : scale_out)[static_cast<size_t>(c)];
  }
};

/// The file's text (the format above); `comments` are written first, one `# ` line each.
std::string fabric_calibration_text(const FabricCalibration& calibration, const std::vector<std::string>& comments);

/// Reads the format above. Throws InputError naming `file`, the line and the rule for anything
/// else (an unknown key or section, a value that is not a positive number, no collective, a
/// scale-out section without ranks_per_domain).
FabricCalibration parse_fabric_calibration(std::istream& in, const std::string& file);

/// parse_fabric_calibration of the file at `path` (read whole, capped at 1 MiB).
FabricCalibration read_fabric_calibration(const std::string& path);

}  // namespace trainsim
