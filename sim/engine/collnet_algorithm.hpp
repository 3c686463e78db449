#pragma once
// All-reduce with in-network reduction in the InfiniBand switches (SHARP), NCCL's CollNet
// Direct: inside each NVLink domain the GPUs reduce-scatter and later all-gather directly
// over NVLink (each GPU with every other); GPU j of each domain sends its reduced slice S/k
// up through its own NIC, the switches reduce the slices of all domains and send the result
// down, so each NIC carries S/k per direction whatever the number of domains D (a ring or
// tree carries 2 (D - 1) / D x S/k). Pipelined by NCCL, so simulated as one phase.
//
// The platform has no switch that reduces, so each NIC's S/k up and S/k down is simulated as
// S/k from GPU j of domain d to GPU j of domain d + 1 (mod D): the same load on every NIC,
// through the same leaf; on a fat-tree it crosses the uplinks once where SHARP's aggregation
// tree would too. Stated assumptions (public.md has no CollNet measurement): the NICs run at
// the network's protocol efficiency; latency 2 network hops (up to the aggregation switch and
// back) of the slowest inter-domain edge plus 2 NVLink hops. Only on clusters whose switches
// reduce and whose NCCL loads the CollNet (SHARP) plugin: cluster.sharp.

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

class CollnetAlgorithm final : public CollectiveAlgorithm {
 public:
  CollectiveAlgo id() const override { return CollectiveAlgo::collnet; }
  bool supports(CollectiveOp op) const override { return op == CollectiveOp::all_reduce; }
  /// Throws InputError when the cluster's switches do not reduce (cluster.sharp = false) or
  /// the domains hold different numbers of the group's GPUs.
  CommPlan plan(const CollectiveCall& call, const Platform& platform) const override;
};

/// True when the cluster has SHARP and every domain of `gpus` holds as many of them.
bool collnet_possible(const std::vector<int>& gpus, const Platform& platform);

/// The time a CollNet all-reduce of `bytes` takes on `domains` domains of `per_domain` GPUs
/// with nothing else on the links: latency plus the slower of the NVLink and NIC stages.
double collnet_all_reduce_s(double bytes, int per_domain, int domains, const Platform& platform);

}  // namespace trainsim::engine
