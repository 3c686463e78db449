#pragma once
// All-to-all as concurrent point-to-point exchanges, as NCCL implements it (grouped
// ncclSend/ncclRecv to every peer): each rank sends S/n to each of the n-1 others; one
// step of latency. Transfers are generated block by block (64 x 64 ranks) so that the
// runner's parallel tasks stay small.

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

class PairwiseAlgorithm final : public CollectiveAlgorithm {
 public:
  CollectiveAlgo id() const override { return CollectiveAlgo::pairwise; }
  bool supports(CollectiveOp op) const override { return op == CollectiveOp::all_to_all; }
  CommPlan plan(const CollectiveCall& call, const Platform& platform) const override;
};

}  // namespace trainsim::engine
