#pragma once
// Protocol efficiency: the fraction of line rate NCCL's collectives reach on a fabric.
// NVLink and InfiniBand never run at line rate (protocol headers, flags, chunking), so the
// simulated links carry line rate x efficiency. Calibrated per fabric generation, never
// per scenario (../shared/validation/public.md, preamble).

#include "topologies/cluster_spec.hpp"

namespace trainsim {

struct ProtocolEfficiency {
  double nvlink = 1.0;   ///< achieved / line rate on NVLink (ring bus bandwidth / per-direction line rate)
  double network = 1.0;  ///< achieved / line rate per NIC
  /// NVLink SHARP (NVLS) all-reduce inside one NVSwitch node: achieved algorithm bandwidth
  /// over the ideal line rate / (1 + 1/n) (each GPU sends and receives S (1 + 1/n) bytes,
  /// the switch reducing and multicasting). 0: the node's switches cannot reduce.
  double nvls = 0.0;
};

/// The efficiencies for `cluster`'s GPU (NVLink generation) and NIC speed (IB generation);
/// 1.0 for the ideal fabric and for hardware without a measurement.
ProtocolEfficiency protocol_efficiency(const ClusterSpec& cluster);

}  // namespace trainsim
