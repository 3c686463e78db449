#pragma once
// Replays a captured workload on a simulated cluster: one SimGrid actor per rank plays its
// nodes in dependency order (data_deps and ctrl_deps). GPU compute nodes take their recorded
// duration, one at a time (one compute stream: the traces carry no stream); collectives start
// when every rank of their process group has reached them and run on the fabric through the
// collective engine (engine/plan_runner.hpp: start_collective), concurrently with compute;
// a send and its receive (matched in order per source, destination and tag) start one
// transfer when both are reached. Skipped nodes (CPU-side ops, metadata) complete at once.
// Rank r runs on GPU r of the cluster.

#include <cstddef>

#include "sim/workload/replay_result.hpp"
#include "sim/workload/workload.hpp"
#include "topologies/cluster_spec.hpp"

namespace trainsim::workload {

/// Simulates `w` on `cluster` (one SimGrid engine: one call per process), with
/// ReplayResult::events when `timeline` (up to `max_events` of them, the first to end).
/// Throws InputError when the cluster has fewer GPUs than the workload has ranks, a
/// collective's type has no engine counterpart (reduce, gather, scatter), or the ranks
/// deadlock.
ReplayResult replay_workload(const Workload& w, const ClusterSpec& cluster, bool timeline = false,
                             std::size_t max_events = 0);

}  // namespace trainsim::workload
