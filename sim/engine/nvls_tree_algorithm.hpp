#pragma once
// All-reduce with NVLink SHARP inside each NVLink domain and a reduction across domains over
// the NICs (NCCL's NVLS_TREE, NCCL 2.18+): the domain's switches reduce the buffer and each
// GPU keeps 1/k of the reduced result (k the group's GPUs per domain); GPU j of every domain
// all-reduces its slice S/k with GPU j of the other domains through its own NIC (same rail,
// no PXN); the switches multicast the result back. NCCL pipelines the three stages chunk by
// chunk, so they are simulated as one phase whose flows share the links at once: the slowest
// stage sets the pace.
//
// Volumes: each GPU's NVLink port carries the NVLS volume S (1 + 1/k) per direction at the
// NVLS rate (nvls_algorithm.hpp); each NIC 2 (D - 1) / D x S / k per direction (D domains),
// the bandwidth-optimal all-reduce volume of the slice (NCCL's tree across domains carries up
// to 2 S / k: a stated simplification in the tree's favour for large D). Latency: NCCL's NVLS
// latency (25 us) plus 2 log2(D) network hops of the slowest inter-domain edge, the tree's up
// and down passes (public.md D1's tree latency form).

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

class NvlsTreeAlgorithm final : public CollectiveAlgorithm {
 public:
  CollectiveAlgo id() const override { return CollectiveAlgo::nvls_tree; }
  bool supports(CollectiveOp op) const override { return op == CollectiveOp::all_reduce; }
  /// Throws InputError when the domains' switches cannot reduce or the domains hold different
  /// numbers of the group's GPUs. On one domain: NVLS.
  CommPlan plan(const CollectiveCall& call, const Platform& platform) const override;
};

/// True when every domain of `gpus` reduces in its switches and holds as many of them.
bool nvls_tree_possible(const std::vector<int>& gpus, const Platform& platform);

/// The time an NVLS-tree all-reduce of `bytes` takes on `domains` domains of `per_domain`
/// GPUs with nothing else on the links: latency plus the slower of the NVLS and NIC stages.
double nvls_tree_all_reduce_s(double bytes, int per_domain, int domains, const Platform& platform);

}  // namespace trainsim::engine
