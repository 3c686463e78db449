#pragma once
// Collectives inside one NVLink domain on a fabric whose in-domain collectives were measured
// (NVLink 5: SimuMax's 8 x B200, topologies/protocol_efficiency.hpp). NCCL picks a protocol
// per size (nccl_latency.hpp): the measurement stands for the bandwidth protocols it runs
// large buffers with, NCCL's own LL model for the small end; whichever is faster:
//
//   LL:       NCCL's LL ring base (3.6 us) + steps x NVLink hop + bus bytes / (links' rate / 2)
//   measured: fixed + steps x per-step latency + bus bytes / (line rate x efficiency)
//
// LL's half rate is its wire format (4 data bytes in every 8-byte store); the measured latency
// is SimuMax's (fixed + per step x steps: 2(n-1) for an all-reduce, n-1 for the others), and
// trainsim applies it to any group size of the domain, the NVL72 rack's 72 GPUs included (a
// stated assumption: SimuMax measured up to 8 GPUs). Inside a measured domain the all-reduce
// measurement stands for NCCL's ring and tree alike (SimuMax fits whatever NCCL ran), and
// NVLS pays its latency too (nvls_algorithm.hpp). Across domains the ring's and the tree's
// NVLink steps pay the measured per-step latency with a bandwidth protocol, and LL its wire
// format (algorithm_selection.cpp), so that NCCL's model and the simulation agree there too.
// A measurement that covers the smallest messages (NVLink 4's all-to-all: its 10.5 us floor)
// is taken alone: what NCCL picks for them is already in it.

#include <optional>

#include "sim/engine/collective.hpp"
#include "sim/engine/platform.hpp"
#include "topologies/protocol_efficiency.hpp"

namespace trainsim::engine {

/// What a collective inside one measured domain costs, contention aside.
struct DomainCost {
  double time_s = 0;      ///< modelled time
  double latency_s = 0;   ///< the latency the plan pays besides its bytes
  double byte_scale = 1;  ///< factor on the plan's bytes, whose links run at platform.nvlink_Bps()
};

/// The measurement of `op` inside one NVLink domain of `platform`, or nullptr (an unmeasured
/// operation or fabric).
const MeasuredCollective* measured_in_domain(CollectiveOp op, const Platform& platform);

/// The latency SimuMax's model gives `op` (measured) on `ranks` GPUs, in seconds.
double measured_latency_s(CollectiveOp op, const MeasuredCollective& m, int ranks);

/// The cost of a ring-family collective (ring all-reduce, all-gather, reduce-scatter,
/// pairwise all-to-all) of `bytes` over `ranks` GPUs of one domain; nullopt when `op` is not
/// measured on the platform's NVLink.
std::optional<DomainCost> domain_cost(CollectiveOp op, double bytes, int ranks, const Platform& platform);

}  // namespace trainsim::engine
