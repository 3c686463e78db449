#pragma once
// Ring algorithms: all-reduce (reduce-scatter then all-gather around the ring),
// all-gather, reduce-scatter, and the pipelined ring broadcast NCCL uses.
//
// Per rank and channel, over the whole collective, each ring edge carries
// 2(n-1)/n x S_c (all-reduce), (n-1)/n x S_c (all-gather, reduce-scatter) or S_c
// (broadcast, every edge but the one into the root), S_c = S / channels; the ring pays
// 2(n-1), n-1 or n-1 step latencies (public.md D1: nccl-tests PERFORMANCE.md and NCCL's
// tuning model, nsteps = 2(nRanks-1) for all-reduce).
//
// Each step costs the latency of the ring's slowest hop: the ring is step-synchronous, as
// in the per-message reference (reference_ring.hpp) it is checked against. NCCL keeps
// several steps in flight and charges each hop its own latency (public.md D1), so on rings
// mixing NVLink and network hops this is conservative: a pipelined per-message ring on 2
// DGX H100 nodes measured 4% faster latency-bound and 22% faster at 16 MiB (not kept).
//
// Channels: with k GPUs of the group per node on several nodes, NCCL runs k rings
// ("channels"), each entering every node at a different GPU, so that every NIC carries
// one ring. Channel c visits a node's GPUs rotated by c and leaves it toward the next
// node's GPU c, rail-aligned (with PXN on rail-optimized fabrics, platform.hpp).

#include <vector>

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

class RingAlgorithm final : public CollectiveAlgorithm {
 public:
  CollectiveAlgo id() const override { return CollectiveAlgo::ring; }
  bool supports(CollectiveOp op) const override;
  CommPlan plan(const CollectiveCall& call, const Platform& platform) const override;
};

/// The ring order of each channel for `gpus` (one channel on a single node, or when
/// nodes hold different numbers of the group's GPUs).
std::vector<std::vector<int>> ring_channels(const std::vector<int>& gpus, const Platform& platform);

}  // namespace trainsim::engine
