#pragma once
// Send/recv as nccl-tests' sendrecv runs it: rank i sends S bytes to rank i+1 (mod n) and
// receives S from rank i-1, all at once; one message latency.

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

class DirectAlgorithm final : public CollectiveAlgorithm {
 public:
  CollectiveAlgo id() const override { return CollectiveAlgo::direct; }
  bool supports(CollectiveOp op) const override { return op == CollectiveOp::send_recv; }
  CommPlan plan(const CollectiveCall& call, const Platform& platform) const override;
};

}  // namespace trainsim::engine
