#pragma once
// All-to-all as concurrent point-to-point exchanges, as NCCL implements it (grouped
// ncclSend/ncclRecv to every peer): each rank sends S/n to each of the n-1 others. Transfers
// are generated block by block (64 x 64 ranks) so that the runner's parallel tasks stay small.
//
// Latency, from NVIDIA/nccl at 5067397c. NCCL runs the n send/receive rounds of its p2p schedule
// in one kernel, each channel taking a batch of up to 8 rounds at once (src/include/device.h
// NCCL_MAX_DEV_WORK_P2P_PER_BATCH; src/enqueue.cc addP2pToPlan: "Each channel runs up to
// NCCL_MAX_DEV_WORK_P2P_PER_BATCH tasks concurrently"). A small exchange runs on one channel
// (enqueue.cc scheduleP2pTasksToPlan: nChannelsMin halves while nChannelsMin x nRanks exceeds the
// p2p channels), placed by ncclP2pChannelBaseForRound (src/include/channel.h): inside one NVLink
// domain one channel base per round; across domains one per batch of 8 rounds of a schedule
// group (src/init.cc ncclP2pSchedule: groups of NCCL_P2P_SCHEDULE_GROUP_SIZE = 8 ranks, or the
// gcd with the ranks a domain holds). Bases wrap around the p2p channels, and batches sharing a
// channel run one after the other: the GPU-driven exchange takes
//
//   waves = ceil(bases / p2p channels) latencies of the slowest NVLink hop,
//
// not one hop per peer. The p2p channels are the communicator's channels rounded up to a power
// of 2 (src/graph/paths.cc ncclTopoComputeP2pChannels); trainsim takes 32, what SM90/SM100
// communicators reach across nodes after ncclTopoPostset's doublings (nccl_channels.hpp): a
// stated assumption. A peer in another domain is reached through the network transport, whose
// sends and receives the GPU's one proxy thread progresses op after op (src/proxy.cc
// progressOps, src/transport/net.cc sendProxyProgress / recvProxyProgress): each network peer
// adds one network hop's latency (the proxy's turn per peer taken as one hop: a stated
// assumption, the same as before for these peers; no public per-op figure was found).

#include <vector>

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

inline constexpr int k_nccl_p2p_per_batch = 8;  ///< NCCL_MAX_DEV_WORK_P2P_PER_BATCH
inline constexpr int k_nccl_p2p_channels = 32;  ///< the p2p channels assumed (above)

/// The waves of concurrent send/receive batches NCCL's all-to-all runs one after the other, for
/// NVLink domains holding `per_domain` of its GPUs each (one entry per domain).
int nccl_all_to_all_waves(const std::vector<int>& per_domain);

/// The latency of an all-to-all as above: `waves` x `nvlink_hop_s` for the GPU-driven batches,
/// plus `network_peers` (the most peers a GPU reaches over the network) x `network_hop_s`.
double nccl_all_to_all_latency_s(int waves, double nvlink_hop_s, int network_peers, double network_hop_s);

class PairwiseAlgorithm final : public CollectiveAlgorithm {
 public:
  CollectiveAlgo id() const override { return CollectiveAlgo::pairwise; }
  bool supports(CollectiveOp op) const override { return op == CollectiveOp::all_to_all; }
  CommPlan plan(const CollectiveCall& call, const Platform& platform) const override;
};

}  // namespace trainsim::engine
