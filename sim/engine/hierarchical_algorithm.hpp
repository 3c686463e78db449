#pragma once
// Hierarchical all-reduce (as in Horovod's hierarchical mode and BlueConnect, Cho et al.
// 2019): (1) reduce-scatter among the GPUs of each node, (2) k concurrent ring all-reduces
// across the nodes, one per GPU position, each on S/k, (3) all-gather inside each node.
// The three phases run one after the other. Nodes must hold equally many of the group's
// GPUs; on one node it is the ring.
//
// Bytes per edge: (k-1)/k x S in phases 1 and 3, 2(N-1)/N x S/k in phase 2 (public.md D1
// ring forms); latency (k-1), 2(N-1) and (k-1) steps.

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

class HierarchicalAlgorithm final : public CollectiveAlgorithm {
 public:
  CollectiveAlgo id() const override { return CollectiveAlgo::hierarchical; }
  bool supports(CollectiveOp op) const override { return op == CollectiveOp::all_reduce; }
  /// Throws InputError when nodes hold different numbers of the group's GPUs.
  CommPlan plan(const CollectiveCall& call, const Platform& platform) const override;
};

}  // namespace trainsim::engine
