#pragma once
// PAT (Parallel Aggregated Trees, NCCL 2.23+): all-gather and reduce-scatter at one GPU per
// node (here: per NVL72 rack), in log2(nodes) aggregated steps instead of the ring's n - 1
// (NVIDIA/nccl src/graph/tuning.cc at 5067397c, ncclPatEnable: 1 GPU per node only). Each
// GPU still sends and receives (n-1)/n of the gathered buffer through its NIC, the ring's
// volume, so its transfers are the ring's; what differs is the latency NCCL's model gives it
// (nccl_rack_model.hpp), which algorithm_selection.cpp charges.

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

class PatAlgorithm final : public CollectiveAlgorithm {
 public:
  CollectiveAlgo id() const override { return CollectiveAlgo::pat; }
  bool supports(CollectiveOp op) const override {
    return op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter;
  }
  /// Throws InputError unless every NVLink domain holds exactly one of the GPUs.
  CommPlan plan(const CollectiveCall& call, const Platform& platform) const override;
};

}  // namespace trainsim::engine
