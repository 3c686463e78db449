#pragma once
// Collectives across NVLink domains as the user measured them with multi-node nccl-tests: the
// scale-out tier of the cluster's fabric calibration (topologies/fabric_calibration.hpp,
// `trainsim calibrate --from-nccl-tests`). Like the in-domain tier (domain_collective.hpp) it
// stands for whatever NCCL ran across the domains (ring, tree, NVLS-tree, CollNet), so the
// group runs the plain plan of its operation (ring; pairwise all-to-all; direct send/receive)
// with the measured latency in place of the links' hop latencies and NCCL's base latency, and
// its bytes scaled so that the plan's most loaded link carries them at the measured bus
// bandwidth: alone on the fabric the plan takes the calibrated time, and beside other traffic
// it shares the links it really crosses.

#include "sim/engine/comm_plan.hpp"
#include "sim/engine/platform.hpp"
#include "topologies/fabric_calibration.hpp"

namespace trainsim::engine {

struct CollectiveCall;

/// The scale-out fit for `call`: its group (2 GPUs or more) spans two NVLink domains or more
/// with as many of its GPUs in each, and the cluster's calibration holds its operation across
/// domains; nullptr otherwise (the built-in model decides).
const FittedCollective* scale_out_fit(const CollectiveCall& call, const Platform& platform);

/// The calibrated latency of `call` across domains (fixed + steps between domains + steps
/// inside them at the in-domain per-step latency), in seconds; scale_out_fit must hold.
double scale_out_latency_s(const CollectiveCall& call, const Platform& platform);

/// The calibrated time of `call`, contention aside, in seconds; scale_out_fit must hold.
double scale_out_time_s(const CollectiveCall& call, const Platform& platform);

/// Rewrites `plan` (its operation's plain plan) to cost scale_out_time_s alone on the fabric;
/// `reference`: the plan of the same call with even bytes to every peer, when `plan` has not
/// (an all-to-all's remote_share keeps its effect on the scaled bytes).
void pay_scale_out_cost(CommPlan& plan, const CollectiveCall& call, const Platform& platform,
                        const CommPlan* reference = nullptr);

}  // namespace trainsim::engine
