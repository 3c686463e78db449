#pragma once
// An all-to-all run by a kernel of its own at its measured rate (DeepEP's and HybridEP's
// dispatch and combine: CollectiveCall::kernel_Bps, sim/step/dispatcher_rates.hpp) instead of
// NCCL's: the pairwise plan's bytes move on the simulated links as before, scaled so that
// alone they take call.bytes / kernel_Bps on the busiest endpoint (a GPU's NVLink port at
// Platform::nvlink_Bps, a NIC at nic_Bps, each way), and contention with other traffic slows
// them as it would NCCL's. Latency: one hop, the slowest edge's (the kernel sends to every peer
// at once; the measured rate at 4,096 tokens holds the rest).

#include "sim/engine/collective.hpp"
#include "sim/engine/comm_plan.hpp"
#include "sim/engine/platform.hpp"

namespace trainsim::engine {

/// The seconds `phase`'s transfers take alone at the endpoints' rates: the most bytes any
/// GPU's NVLink port or NIC sends or receives over its rate, along each transfer's legs.
double endpoint_bound_s(const CommPhase& phase, const Platform& platform);

/// Rescales `plan` (a pairwise all-to-all of `call`, call.kernel_Bps > 0) to the kernel's rate.
void pay_kernel_rate(CommPlan& plan, const CollectiveCall& call, const Platform& platform);

}  // namespace trainsim::engine
