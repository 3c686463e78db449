#pragma once
// NCCL's own tuning model for a collective whose GPUs span several NVL72 racks (multi-node
// NVLink, MNNVL: NCCL treats a rack's GPUs as one node, NVLink inside and NICs between), as
// NVIDIA/nccl states it at 5067397c (June 2026; src/graph/tuning.cc, src/graph/search.cc,
// src/transport/nvls.cc, src/enqueue.cc). It decides which algorithm and protocol run and
// the latency NCCL pays; the bytes themselves move on the simulated links.
//
// Per algorithm a, protocol p (LL, LL128, Simple), for n ranks on R racks, ppn = n / R:
//
//   time = latency(a, p) + bytes / algbw(a, p)                        (ncclTopoGetAlgoTime)
//
// Graphs (search.cc): a GPU reaches the NVLink switches at 18 x 40.1 = 721.8 GB/s (SM100);
// each GPU of the group has its own NIC (a GB200/GB300 compute tray: 4 GPUs, 4 NICs; fewer
// NICs a rack than GPUs bound the channels and heads below to one per NIC), whose
// NCCL speed is the largest of the SM100 inter-node speeds not above the NIC's rate (48 GB/s
// for 400 Gb/s, 96 for 800 Gb/s).
// - Ring and tree: one channel per NIC at that speed, as many as the NVLink carries
//   (floor(721.8 / speed)), at most ppn, the rack's NICs and 32; doubled at half the speed when the speed is
//   50 GB/s or more or the channels 4 or fewer (ncclTopoDupChannels).
// - NVLS-tree (not with NCCL_NVLS_ENABLE=0): h = min(32, ppn, NICs) heads (NCCL_MAX_NVLS_ARITY), one per NIC-attached GPU; every
//   head channel takes its speed from every GPU's NVLink port and twice from its head's, so
//   the search settles on the largest speed s with (h + 1) s <= 721.8 (bwIntra: 20 GB/s for
//   a full rack, 48 for 8 GPUs of a rack), then raises the network speed while it stays
//   below 2 bwIntra and the NIC allows (bwInter: 40, 48).
//
// Bandwidths (tuning.cc): busbw = channels x per-channel bw, per-channel bw = bwIntra on 2
// racks, bwInter beyond; NVLS-tree: min(bwIntra x 0.74 (Blackwell nvlsEfficiency) x (h-1)/h x 2,
// bwInter (x 2 on 2 racks), 96 (2 racks) or 80 GB/s); ring LL: min(busbw / 2, 39 or 20.4);
// ring LL128: min(busbw x 0.92, 40 x channels); tree: min(busbw x 0.92, channels x 42.8 or 24),
// LL: min(/3.8, LL cap), LL128: min(x 120/128, channels x 31.67 or 20); PAT x 0.75. algbw =
// busbw x n / nsteps (ring, NVLS-tree), busbw / 2 (tree all-reduce), busbw (PAT).
//
// Latencies (us; Grace CPUs, IB without extra net latency): base ring 6.6 / 14 / 8.4, tree
// 6.8 / 14 / 8.4, PAT 8, NVLS-tree 0; NVLink hop ring 0.6 / 1.9 / 3.4, tree 0.6 / 1.25 / 4,
// NVLS-tree 25; network hop ring 2.7 / 4 / 14, tree 5 / 8.5 / 14 (the tree's at 1 GPU per
// rack), NVLS-tree 20.9, PAT 14. Ring: base + (nsteps - inter steps) x max(NVLink hop, 1 us
// net overhead, x 3 for Simple) + inter steps x network hop, x 1.4 for a Simple all-reduce
// of 64+ bytes per rank and channel; tree all-reduce: base + 2 ((ppn - 1) NVLink hop +
// log2 R network hop), times NCCL's tree correction factor by size; NVLS-tree: 25 + 2 log2 R
// x 20.9; PAT (all-gather and reduce-scatter at one GPU per rack only): 8 + log2 R x 14 /
// 3.5 + 2.8 n.
//
// Pipeline fill (beyond NCCL's model, which charges a tree only its hops' latency): NVLS-tree
// moves the buffer in loops of (channels x heads x chunk) bytes through its stages (the in-rack
// reduction, log2 R hops up, log2 R down, the multicast back), each stage handing on one loop
// at its own rate by NCCL's model (in-rack stages at h x the intra bandwidth, network hops at
// h x the inter, as algorithm bandwidths), so the first loop reaches the last stage after the
// sum of the stages' loop times less the slowest (whose time is the bandwidth term):
// 24 compute channels beyond 2 racks on 400 Gb/s NICs (32 on 2, or for more than 8 GPUs
// a rack on 800 Gb/s), chunks of 128 KiB (64 KiB where heads x channels x chunk x 4 exceeds
// the buffer, 32 KiB below one loop; 64 KiB max on 2 racks with 16+ GPUs each or 800 Gb/s
// with 32+; nvls.cc ncclNvlsTreeSm100Tuning, enqueue.cc calcCollChunking); the tree, at the
// channel's speed times the protocol's wire efficiency, hands on a step on each network hop
// (Simple 512 KiB, LL 32 KiB, LL128 576000 bytes halved down to 17280 as calcCollChunking sizes
// it for the tree's depth; transport/net.cc sends a step once written) and on each NVLink hop of
// the rack's chain a Simple step, but for LL and LL128 only what one pass of the channel's
// threads forwards, since every line carries its flag (prims_ll.h, prims_ll128.h: 2816 and 26880
// bytes up, 1280 and 11520 down).

#include <vector>

#include "sim/engine/collective.hpp"
#include "sim/engine/nccl_channels.hpp"
#include "sim/engine/nccl_latency.hpp"

namespace trainsim::engine {

/// A group as NCCL's model sees it across racks.
struct RackGroup {
  int ranks = 0;         ///< GPUs of the collective
  int racks = 0;         ///< NVLink domains they span (>= 2)
  double nic_Bps = 0;    ///< each NIC's line rate, bytes/s
  /// NICs the group's GPUs have in one rack, as the cluster preset states (a GB200 or GB300
  /// tray: 4 GPUs, 4 NICs); 0: one per GPU. NCCL runs one ring or tree channel, and one
  /// NVLS-tree head, per NIC (search.cc), so fewer NICs than GPUs a rack bound both.
  int nics_per_rack = 0;
  /// NCCL may run NVLS-tree (false: NCCL_NVLS_ENABLE=0, cluster.nvls).
  bool nvls = true;
  /// The communicator's CTA limits (nccl_cta_limits(); unset: NCCL's defaults).
  NcclCtaLimits ctas{};
};

/// NCCL's estimate of one algorithm and protocol.
struct RackEstimate {
  CollectiveAlgo algo = CollectiveAlgo::ring;
  NcclProtocol protocol = NcclProtocol::simple;
  double time_s = 0;     ///< NCCL's modelled time (latency + bytes / algbw)
  double latency_s = 0;  ///< NCCL's latency term
  double algo_Bps = 0;   ///< NCCL's modelled algorithm bandwidth
  double fill_s = 0;     ///< the pipeline fill a tree adds (0 for rings and PAT)
  /// The channels (CTAs) the collective runs on (nccl_channels.hpp).
  int channels = 0;
  /// The algorithm bandwidth those channels reach: algo_Bps x channels / the communicator's
  /// default channels, at most algo_Bps (nccl_channels.hpp, "What a channel carries").
  double channel_algo_Bps = 0;
};

/// Every algorithm and protocol NCCL's model allows for `op` on `group` (ring, tree,
/// NVLS-tree for an all-reduce; ring, and PAT at one GPU per rack, for all-gather and
/// reduce-scatter); empty for other operations.
std::vector<RackEstimate> nccl_rack_estimates(CollectiveOp op, double bytes, const RackGroup& group);

/// The fastest of nccl_rack_estimates() by NCCL's time (the fill aside, as NCCL chooses).
/// Throws Error for an operation without candidates (only all-reduce, all-gather, reduce-scatter have them).
RackEstimate nccl_rack_choice(CollectiveOp op, double bytes, const RackGroup& group);

/// NVLS-tree's heads per rack for `per_rack` GPUs of the group in each (NCCL_MAX_NVLS_ARITY),
/// at most `nics` (0: one NIC per GPU).
int nccl_rack_nvls_heads(int per_rack, int nics = 0);

}  // namespace trainsim::engine
