#pragma once
// All-reduce with NVLink SHARP (NVLS) inside one NVSwitch node (H100, H200): each GPU reads
// its 1/n of the buffer reduced by the switch (multimem ld_reduce) and writes the result
// back, which the switch multicasts to every GPU (multimem st). Per GPU, each direction of
// its NVLink port carries S + S/n bytes; the rate the switch sustains is the platform's
// nvls_Bps() (line rate x the NVLS efficiency of topologies/protocol_efficiency.cpp, fitted
// on one published 8-GPU figure).
//
// Simulated as one exchange between every pair of the node's GPUs whose per-port volume
// takes, at the port's simulated NVLink rate, the time S (1 + 1/n) / nvls_Bps(): the ports
// are what other traffic on the node shares with it. One latency of 25 us, NCCL's own NVLS
// figure (NVIDIA/nccl src/graph/tuning.cc at 5067397c: base 0 + NVLink NVLS Simple 25 us).

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

inline constexpr double k_nvls_latency_s = 25e-6;

class NvlsAlgorithm final : public CollectiveAlgorithm {
 public:
  CollectiveAlgo id() const override { return CollectiveAlgo::nvls; }
  bool supports(CollectiveOp op) const override { return op == CollectiveOp::all_reduce; }
  /// Throws InputError when the GPUs span nodes or the node's switches cannot reduce.
  CommPlan plan(const CollectiveCall& call, const Platform& platform) const override;
};

/// True when `gpus` share one node whose switches reduce (platform.nvls_Bps() > 0).
bool nvls_possible(const std::vector<int>& gpus, const Platform& platform);

/// The time an NVLS all-reduce of `bytes` over `ranks` GPUs takes with nothing else on
/// the node: the latency plus bytes (1 + 1/ranks) / nvls_Bps().
double nvls_all_reduce_s(double bytes, int ranks, const Platform& platform);

}  // namespace trainsim::engine
