#pragma once
// What a step's simulated replicas stand for when GPUs or NICs differ ([variations]), for the
// traces: a note per (replica, pipeline stage) that names a Chrome trace's tracks, and the
// `simulated_gpus` line of both traces. With symmetry reduced one replica is simulated per
// class of replicas that compute alike (sim/step/replica_classes.hpp); a user opening the
// trace in Perfetto sees which tracks are the slow GPUs' and how many replicas each set of
// tracks stands for, without rederiving the classes.

#include <string>

#include "sim/scenario/scenario.hpp"
#include "sim/trace/trace_contents.hpp"

namespace trainsim::cli {

struct SimulatedReplicas {
  /// Per (replica, stage): "replica R standing for N" (symmetry reduced), then "compute
  /// K.KKKx as long" where its stage computes slower, "a slow NIC in its groups" where one sits
  /// there. Empty for a uniform cluster, or beside a neighbour job.
  TrackNotes notes;
  /// What the events are of (TraceMetadata::simulated_gpus).
  std::string description;
};

/// As the step simulation draws and classes them (simulate_step: with_slow_parts, then
/// replica_classes on the job's own cluster).
SimulatedReplicas simulated_replicas(const Scenario& s, bool reduce_symmetry);

}  // namespace trainsim::cli
