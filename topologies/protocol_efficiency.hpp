#pragma once
// Protocol efficiency: the fraction of line rate NCCL's collectives reach on a fabric.
// NVLink and InfiniBand never run at line rate (protocol headers, flags, chunking), so the
// simulated links carry line rate x efficiency. Calibrated per fabric generation, never
// per scenario (../shared/validation/public.md, preamble).

#include <string_view>
#include <utility>
#include <vector>

#include "topologies/cluster_spec.hpp"

namespace trainsim {

/// One collective inside one NVLink domain as measured on the fabric, in SimuMax's model
/// (MooreThreads/SimuMax `configs/system/b200_bf16_ceperm.json`, public.md D4): bus bandwidth
/// = NVLink line rate x efficiency; latency = fixed + per step x steps, the steps 2(n - 1)
/// for an all-reduce and n - 1 for the others. An efficiency of 0: not measured.
struct MeasuredCollective {
  double efficiency = 0.0;     ///< bus bandwidth / NVLink line rate per direction
  double step_latency_s = 0;   ///< per step
  double fixed_latency_s = 0;  ///< once per collective
  /// Fixed latencies measured for particular group sizes (ranks, seconds), instead of fixed_latency_s.
  std::vector<std::pair<int, double>> fixed_latency_by_ranks_s;
  /// The latency is the measured time of the smallest messages, which already runs the
  /// protocol NCCL picks for them: no faster protocol is modelled below it.
  bool small_sizes_measured = false;
  /// Fitted to the user's own nccl-tests logs (fabric_calibration.hpp): it stands for whatever
  /// NCCL ran inside the domain, NVLS included, so no other algorithm is chosen over it there.
  bool user_measured = false;

  bool measured() const { return efficiency > 0; }
  /// fixed (for `ranks`) + step x `steps`, in seconds.
  double latency_s(int ranks, double steps) const;
};

struct ProtocolEfficiency {
  double nvlink = 1.0;   ///< achieved / line rate on NVLink (ring bus bandwidth / per-direction line rate)
  double network = 1.0;  ///< achieved / line rate per NIC
  /// Where `nvlink` and `network` come from, as a user can look it up (the measurement and its
  /// publication, or why there is none); printed by `trainsim topology`.
  std::string_view nvlink_source = "line rate (no measurement)";
  std::string_view network_source = "line rate (no measurement)";
  /// NVLink SHARP (NVLS) all-reduce inside one NVLink domain: achieved algorithm bandwidth
  /// over the ideal line rate / (1 + 1/n) (each GPU sends and receives S (1 + 1/n) bytes,
  /// the switch reducing and multicasting). 0: the domain's switches cannot reduce.
  double nvls = 0.0;
  /// The NVLS stage of an NVLS-tree all-reduce across domains, defined as `nvls`.
  double nvls_tree = 0.0;
  /// Collectives inside one NVLink domain measured on this NVLink generation (NVLink 5; the
  /// all-to-all on NVLink 4 too); the others run on links at `nvlink` with NCCL's latencies.
  MeasuredCollective all_reduce, all_gather, reduce_scatter, all_to_all;
  /// A send/receive inside one domain: measured only by a fabric calibration.
  MeasuredCollective send_recv;
};

/// The efficiencies for `cluster`'s GPU (NVLink generation), NVLink fabric (NVSwitch in a
/// node, or the NVLink Switch System of an NVL72 rack) and NIC speed (IB generation); 1.0 for
/// the ideal fabric and for hardware without a measurement. The cluster's fabric calibration,
/// when it has one, replaces the in-domain collectives it holds.
ProtocolEfficiency protocol_efficiency(const ClusterSpec& cluster);

}  // namespace trainsim
