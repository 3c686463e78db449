#pragma once
// NCCL's own performance model of a collective (public.md D1: NVIDIA/nccl
// src/graph/tuning.cc at 01afd20a), which NCCL uses to pick an algorithm and a protocol:
//
//   time = base(algo, proto) + hops x hop latency(proto) + bytes / (bus bandwidth x efficiency(proto))
//
// LL sends 4 bytes of data with a 4-byte flag in every 8-byte store (efficiency 1/2), LL128
// 120 of every 128 bytes (15/16), Simple whole buffers (1): small messages go LL for its
// low latency, large ones Simple or LL128 for bandwidth. trainsim keeps its own fitted
// bandwidth per fabric and uses this model for the choice and for the latency NCCL pays
// before the first byte moves: the protocol's base latency (the per-hop latencies are the
// platform's links).

#include "sim/engine/collective.hpp"

namespace trainsim::engine {

enum class NcclProtocol { ll, ll128, simple };

/// LL's ring base latency, seconds, and its data bytes per wire byte (tuning.cc at 01afd20a).
inline constexpr double k_nccl_ll_ring_base_s = 3.6e-6;
inline constexpr double k_nccl_ll_efficiency = 0.5;
/// NCCL's NVLS latencies, seconds (tuning.cc at 5067397c; NVLS runs the Simple protocol only):
/// NVLink NVLS and NVLS-tree 25 us, a network hop of NVLS-tree 20.9 us.
inline constexpr double k_nccl_nvls_latency_s = 25e-6;
inline constexpr double k_nccl_nvls_tree_net_hop_s = 20.9e-6;

/// What NCCL's model gives for one algorithm of a collective.
struct NcclEstimate {
  NcclProtocol protocol = NcclProtocol::simple;  ///< the fastest of the three
  double time_s = 0;                             ///< its modelled time
  double base_latency_s = 0;                     ///< its base latency
};

/// A ring of `ranks` GPUs on `nodes` nodes making `steps` steps of which `inter_steps` cross
/// nodes (all-reduce: 2(n-1) and 2(nodes-1); all-gather, reduce-scatter: n-1 and nodes-1),
/// carrying `bytes` at `bus_Bps` (ring algorithm bandwidth = bus x ranks / steps).
/// `nvlink_step_s` > 0: the NVLink hop of the bandwidth protocols (LL128, Simple) on a fabric
/// where it was measured (domain_collective.hpp), instead of NCCL's constants.
NcclEstimate nccl_ring(double bytes, int ranks, double steps, double inter_steps, double bus_Bps,
                       double nvlink_step_s = 0);

/// NCCL's tree all-reduce: intra-node chains of ranks/nodes - 1 hops, log2(nodes) network
/// hops, up and down; algorithm bandwidth = bus x 0.5. `nvlink_step_s` as for nccl_ring().
NcclEstimate nccl_tree(double bytes, int ranks, int nodes, double bus_Bps, double nvlink_step_s = 0);

}  // namespace trainsim::engine
