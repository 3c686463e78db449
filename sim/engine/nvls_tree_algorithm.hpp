#pragma once
// All-reduce with NVLink SHARP inside each NVLink domain and NCCL's double binary tree across
// domains over the NICs (NCCL's NVLS_TREE, NCCL 2.18+): the domain's switches reduce the
// buffer into h slices, one per head GPU; head j of every domain all-reduces its slice S/h
// with head j of the others along the two trees (each tree half of the slice, up and down),
// through its own NIC (same rail, no PXN); the switches multicast the result back. NCCL
// pipelines the stages chunk by chunk, so they are simulated as one phase whose flows share
// the links at once: the slowest stage sets the pace.
//
// Heads: one per NIC-attached GPU of the group, at most 32 (NVIDIA/nccl at 5067397c:
// src/graph/search.cc, "NVLS ... search must have ngpus heads at most", maxChannels =
// min(NCCL_MAX_NVLS_ARITY = 32, GPUs)): 8 on a DGX node, 32 of an NVL72 rack's 72.
//
// Volumes: each GPU's NVLink port carries the NVLS volume S (1 + 1/k) per direction (k the
// group's GPUs per domain) at the NVLS-tree stage's rate (platform.nvls_tree_Bps()); each
// head's NIC S/(2h) per direction for each tree edge it has: S/h on 2 domains, up to 2 S/h
// beyond (inner in one tree, leaf in the other). NCCL's model, which chooses it, takes S/h on
// 2 domains and 2 S/h beyond (tuning.cc, "Handle 2 node case of NVLSTree"), the ring's
// volume: on 3 or more DGX nodes the ring takes large buffers back. The bound the NICs set is
// h NICs per domain, not one per GPU: on NVL72 racks (32 heads x 47 GB/s / 2 = 752 GB/s
// algbw beyond 2 racks) it stays above the NVLS stage.
//
// Latency: the domain's NVLS latency (nvls_algorithm.hpp) plus 2 ceil(log2 D) network hops
// of the slowest inter-domain edge, the trees' up and down passes (public.md D1's tree form).
// Across NVL72 racks plan_collective() charges NCCL's model's latency and the pipeline fill
// instead (nccl_rack_model.hpp).

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

class NvlsTreeAlgorithm final : public CollectiveAlgorithm {
 public:
  CollectiveAlgo id() const override { return CollectiveAlgo::nvls_tree; }
  bool supports(CollectiveOp op) const override { return op == CollectiveOp::all_reduce; }
  /// Throws InputError when the domains' switches cannot reduce or the domains hold different
  /// numbers of the group's GPUs, or one. On one domain: NVLS.
  CommPlan plan(const CollectiveCall& call, const Platform& platform) const override;
};

/// True when every domain of `gpus` reduces in its switches and holds as many of them, at
/// least 2 (NCCL enables NVLS only with 2 or more GPUs: src/transport/nvls.cc).
bool nvls_tree_possible(const std::vector<int>& gpus, const Platform& platform);

/// The heads per domain of an NVLS-tree over `per_domain` GPUs of each domain.
int nvls_tree_heads(int per_domain, const Platform& platform);

/// NCCL's view of an NVLS-tree all-reduce of `bytes` on `domains` domains of `per_domain`
/// GPUs, for choosing it: the slower of the NVLS stage and the NICs (S/h each way on 2
/// domains, 2 S/h beyond) with nothing else on the links, plus the domain's NVLS latency and NCCL's 20.9 us per network
/// hop, 2 log2(D) of them (tuning.cc at 5067397c).
double nvls_tree_all_reduce_s(double bytes, int per_domain, int domains, const Platform& platform);

}  // namespace trainsim::engine
