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
// Latency: each step costs its own hop's latency, summed along the slowest run of that many
// consecutive hops of a channel's ring (chain_latency_s), as NCCL's tuning model charges a
// ring: (nsteps - nInterSteps) NVLink hops plus nInterSteps network hops (public.md D1,
// tuning.cc). A chunk crosses the ring hop by hop and NCCL keeps several steps in flight
// (NCCL_STEPS slots), so a network hop's latency is paid where the chunk crosses a node,
// not at every step. Charging every step the slowest hop (as before) made a 512-GPU DGX
// H100 all-gather of 8 bytes 1.59 ms against NCCL's model's 0.38 ms (4.1x), growing with the
// ring's length. The per-message reference (reference_ring.hpp) keeps its messages in flight
// and hides part of that latency behind the bytes: the plan is within 1 % of it, or slower by
// at most its latency term (tests/engine/per_message_test.cpp).
//
// Channels: with k GPUs of the group per node on several nodes, NCCL runs k rings
// ("channels"), each entering every node at a different GPU, so that every NIC carries
// one ring. Channel c visits a node's GPUs rotated by c and leaves it toward the next
// node's GPU c, rail-aligned (with PXN on rail-optimized fabrics, platform.hpp).
//
// Order of the transfers (the plan runner packs them in this order into parallel tasks of
// at most 128 hosts, plan_runner.hpp): channel by channel, each in ring order, for up to
// k_channel_major_rings channels (a DGX or HGX node's 8 GPUs: their times are kept); beyond,
// hop by hop: the transfers out of the GPUs at one index of their NVLink domain, every
// channel's and every domain's, then the next index. The same hop of every channel then
// travels in one task (SimGrid sees one element per hop and link instead of one per
// channel), and the domains' ports at one index carry the same tasks, so that the legs of
// the domains nothing else loads repeat another domain's and are left out
// (redundant_legs.hpp). Channel-major, a 128-host task held one channel across two domains
// of 64: a domain's channels shared its NVLink ports and made one component with nothing to
// repeat, and none could be left out. So DeepSeek-V3 with 64 of a gradient group's GPUs in
// each GB300 rack (TP 1 in Megatron-Core's order, data parallelism inner) took 35 s to
// simulate a step at 1,024 GPUs, and more than 15 minutes at 8,192
// (bench/scenarios/deepseek-v3-gb300-megatron-order.ini, trainsim-bench-megatron-order).
// Both orders cut each channel's ring into tasks that progress at their own bottleneck's rate
// (the cut moves where the parts meet): the step moved by -0.81 % at most on the cases
// measured, and the reduced simulation keeps within 0.03 % of --full on them (0.06 % before;
// bench/README.md, "Benchmarks and scale").

#include <cstddef>
#include <vector>

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

/// Rings with more channels than this list their transfers hop by hop (above).
inline constexpr size_t k_channel_major_rings = 8;

class RingAlgorithm final : public CollectiveAlgorithm {
 public:
  CollectiveAlgo id() const override { return CollectiveAlgo::ring; }
  bool supports(CollectiveOp op) const override;
  CommPlan plan(const CollectiveCall& call, const Platform& platform) const override;
};

/// The latency of `steps` ring steps on `ring` (GPUs in ring order, the last sends to the
/// first): the hop latencies of the slowest run of `steps` consecutive hops, as a chunk
/// travels them (NCCL's ring model sums its hops, public.md D1).
double chain_latency_s(const std::vector<int>& ring, double steps, const Platform& platform);

/// The ring order of each channel for `gpus` (one channel on a single node, or when
/// nodes hold different numbers of the group's GPUs).
std::vector<std::vector<int>> ring_channels(const std::vector<int>& gpus, const Platform& platform);

}  // namespace trainsim::engine
