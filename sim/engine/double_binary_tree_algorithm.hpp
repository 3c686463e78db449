#pragma once
// NCCL's double binary tree all-reduce (NCCL 2.4, after Sanders, Speck and Träff 2009):
// two binary trees over the nodes, the second the mirror of the first so that most leaves
// of one are inner nodes of the other; each tree reduces half the buffer up and
// broadcasts it down, pipelined. Inside a node the GPUs form a chain.
//
// Per tree and channel, each tree edge and chain edge carries S/(2C) up and S/(2C) down
// (opposite directions of a full-duplex link, so both overlap). Latency, after NCCL's
// tuning model (public.md D1): 2 x ((GPUs per node - 1) x intra-node hop + depth x
// inter-node hop), depth = floor(log2(nodes)). Channels as in the ring: channel c uses
// each node's GPU c as the node's tree endpoint, so every NIC carries one channel.

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

class DoubleBinaryTreeAlgorithm final : public CollectiveAlgorithm {
 public:
  CollectiveAlgo id() const override { return CollectiveAlgo::double_binary_tree; }
  bool supports(CollectiveOp op) const override { return op == CollectiveOp::all_reduce; }
  CommPlan plan(const CollectiveCall& call, const Platform& platform) const override;
};

/// The parent of node `k` (0 .. count - 1) in tree `tree` (0 or 1) of NCCL's double binary
/// tree over `count` nodes; -1 for the tree's root.
int double_binary_tree_parent(int k, int count, int tree);

}  // namespace trainsim::engine
