#pragma once
// Replays a captured workload on a simulated cluster: one SimGrid actor per rank plays its
// nodes in dependency order (data_deps and ctrl_deps). GPU compute nodes take their recorded
// duration (or, when asked, the compute model's time for their num_ops), one at a time (one compute stream: the traces
// carry no stream); collectives start when every rank of their process group has reached them and run on the fabric
// through the collective engine (engine/plan_runner.hpp: start_collective), concurrently with compute; a send and its
// receive (matched in order per source, destination and tag) start one transfer when both are reached. Skipped nodes
// (CPU-side ops, metadata) complete at once. Rank r runs on GPU r of the cluster.

#include <cstddef>

#include "sim/compute/compute_model.hpp"
#include "sim/workload/replay_result.hpp"
#include "sim/workload/workload.hpp"
#include "topologies/cluster_spec.hpp"

namespace trainsim::workload {

struct ReplayOptions {
  /// Fill ReplayResult::events, up to `max_events` of them (the first to end).
  bool timeline = false;
  std::size_t max_events = 0;
  /// Not null: compute nodes that recorded num_ops or tensor_size take this model's time for
  /// that work (a GEMM of num_ops FLOPs, or a memory-bound op of tensor_size bytes without
  /// them) instead of their recorded duration; the others keep theirs.
  const ComputeModel* compute = nullptr;
};

/// Simulates `w` on `cluster` (one SimGrid engine: one call per process). Throws InputError
/// when the cluster has fewer GPUs than the workload has ranks, a collective's type has no
/// engine counterpart (reduce, gather, scatter), or the ranks deadlock.
ReplayResult replay_workload(const Workload& w, const ClusterSpec& cluster, const ReplayOptions& options = {});

}  // namespace trainsim::workload
