#pragma once
// Everything a trace file holds, as value types: what the HDF5 writer writes and the reader
// returns. The schema is documented in analysis/SCHEMA.md; its version is k_trace_schema_version.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/memory_budget.hpp"
#include "sim/run/run_result.hpp"
#include "sim/step/step_observer.hpp"
#include "sim/step/step_result.hpp"
#include "sim/trace/trace_level.hpp"

namespace trainsim {

/// Major.minor: a minor bump adds fields or datasets, a major one changes or removes them.
/// 1.1: /links/utilization. 1.2: /run, /failures, /checkpoints. 1.7: a neighbour job's step
/// on /summary (neighbour_*).
inline constexpr const char* k_trace_schema_version = "1.8";

/// The root group's attributes.
struct TraceMetadata {
  std::string schema_version = k_trace_schema_version;
  std::string trainsim_version;
  std::string simgrid_version;
  std::string hdf5_version;
  std::string scenario_path;       ///< as given on the command line
  std::string scenario_text;       ///< the file's text, as given
  std::string scenario_overrides;  ///< the --set overrides, one per line
  std::string scenario_resolved;   ///< every key resolved (resolved_ini), INI text
  std::uint64_t seed = 0;
  std::string simulated_gpus;  ///< which GPUs the events are of (symmetry reduction or all)
  bool reduce_symmetry = true;
  /// What simulated it (schema 1.5): "trainsim run" (a scenario's step) or "trainsim replay"
  /// (a Chakra trace: /summary holds what a trace defines, the rest NaN).
  std::string source = "trainsim run";
};

/// One row of /steps; times in simulated seconds from the start of the simulation.
struct TraceStep {
  int step = 0;
  double start_s = 0;
  double end_s = 0;
  double tokens = 0;   ///< tokens trained in this step (global batch x sequence length)
  double samples = 0;  ///< samples (sequences) in this step (global batch)
};

/// One row of /events: one activity of one simulated GPU stream, or (count > 1) the
/// aggregate of several activities of the same step, rank, stream and kind.
struct TraceEvent {
  int step = 0;
  int rank = 0;         ///< global rank of the simulated GPU
  int stage = 0;        ///< pipeline stage
  int replica = 0;      ///< data/context-parallel replica
  std::string stream;   ///< compute, tp_comm, pp_comm, dp_comm, data (at most 15 characters)
  std::string kind;     ///< forward, backward, tp_allreduce, ... (at most 31 characters)
  int layer = -1;       ///< model chunk (virtual pipeline stage) index; -1 when none or aggregated
  int microbatch = -1;  ///< -1 when none or aggregated
  double start_s = 0;   ///< simulated seconds
  double end_s = 0;     ///< simulated seconds
  double bytes = 0;     ///< bytes communicated per GPU (summed when aggregated)
  double flops = 0;     ///< FLOPs executed, recomputation included (summed when aggregated)
  int count = 1;        ///< activities this row stands for
};

/// A note on the tracks of one simulated (replica, pipeline stage): what the replica stands
/// for when GPUs differ ([variations]: sim/cli/simulated_replicas.hpp). Keyed by (replica, stage).
using TrackNotes = std::map<std::pair<int, int>, std::string>;

/// Whether the step fits the GPU's memory and how far to trust it, as `trainsim run --json` says
/// them (schema 1.8: sim/step/memory_fit.hpp, sim/scenario/accuracy_caveats.hpp).
struct TraceVerdict {
  bool fits = true;
  double capacity_bytes = 0;
  double headroom_bytes = 0;  ///< negative when it does not fit
  std::string validation_family;
  std::string caveats;  ///< empty when none applies
};

struct TraceContents {
  TraceMetadata metadata;
  TraceLevel level = TraceLevel::events;
  StepResult summary;         ///< the same metrics as `trainsim run --json`
  std::string compute_model;  ///< the compute model's description
  std::string model_name;     ///< the model's name (`model` in --json)
  /// A scenario's step (trainsim run): its memory verdict and caveats; none for replay.
  std::optional<TraceVerdict> verdict;
  std::vector<TraceStep> steps;
  std::vector<TraceEvent> events;
  std::string events_rule;           ///< how /events was capped (attribute `rule`)
  std::int64_t events_observed = 0;  ///< activities the simulation reported
  std::int64_t max_events = 0;       ///< events kept verbatim before aggregation
  std::vector<StageMemory> memory;   ///< per pipeline stage
  /// Link utilization over time: the busiest links, then each class's mean ("class:<name>").
  std::vector<LinkSample> links;
  /// The run-level simulation (run.duration > 0): /run, /failures and /checkpoints.
  std::optional<RunResult> run;
};

}  // namespace trainsim
