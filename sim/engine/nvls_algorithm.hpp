#pragma once
// All-reduce with NVLink SHARP (NVLS) inside one NVLink domain (an H100, H200 or B200 node's
// NVSwitches, an NVL72 rack's NVLink Switch System): each GPU reads
// its 1/n of the buffer reduced by the switch (multimem ld_reduce) and writes the result
// back, which the switch multicasts to every GPU (multimem st). Per GPU, each direction of
// its NVLink port carries S + S/n bytes; the rate the switch sustains is the platform's
// nvls_Bps() (line rate x the NVLS efficiency of topologies/protocol_efficiency.cpp, fitted
// per NVLink fabric on a published figure).
//
// Simulated as one exchange between every pair of the node's GPUs whose per-port volume
// takes, at the port's simulated NVLink rate, the time S (1 + 1/n) / nvls_Bps(): the ports
// are what other traffic on the node shares with it. Latency: NCCL's own NVLS figure, 25 us
// (NVIDIA/nccl src/graph/tuning.cc at 5067397c: base 0 + NVLink NVLS Simple 25 us), or on
// NVLink 5 the measured all-reduce latency of the domain's n GPUs (domain_collective.hpp:
// 22.2 + 5.52 x 2(n - 1) us, 0.81 ms on an NVL72 rack's 72, which is what makes a rack's
// bus bandwidth grow from 586 GB/s at 512 MiB to ~840 at 4 GiB, public.md D2).

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

class NvlsAlgorithm final : public CollectiveAlgorithm {
 public:
  CollectiveAlgo id() const override { return CollectiveAlgo::nvls; }
  bool supports(CollectiveOp op) const override { return op == CollectiveOp::all_reduce; }
  /// Throws InputError when the GPUs span nodes or the node's switches cannot reduce.
  CommPlan plan(const CollectiveCall& call, const Platform& platform) const override;
};

/// True when `gpus` share one NVLink domain whose switches reduce (platform.nvls_Bps() > 0).
bool nvls_possible(const std::vector<int>& gpus, const Platform& platform);

/// The latency of an NVLS all-reduce over `ranks` GPUs of one domain, in seconds.
double nvls_latency_s(int ranks, const Platform& platform);

/// The time an NVLS all-reduce of `bytes` over `ranks` GPUs takes with nothing else on
/// the node: the latency plus bytes (1 + 1/ranks) / nvls_Bps().
double nvls_all_reduce_s(double bytes, int ranks, const Platform& platform);

}  // namespace trainsim::engine
