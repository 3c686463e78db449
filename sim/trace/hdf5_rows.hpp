#pragma once
// Internal to sim/trace: the in-memory rows of the trace's tables and their HDF5
// compound types, shared by the writer and the reader. Field names and types are the schema
// (analysis/SCHEMA.md); the file stores them little-endian whatever the host.

#include <cstdint>

#include "sim/trace/hdf5_handle.hpp"
#include "sim/trace/trace_contents.hpp"

namespace trainsim::hdf5 {

inline constexpr size_t k_stream_chars = 16;  ///< /events stream: fixed-length, null-padded
inline constexpr size_t k_kind_chars = 32;    ///< /events kind: fixed-length, null-padded

struct StepRow {
  std::int32_t step;
  double start_s;
  double end_s;
  double tokens;
  double samples;
};

struct EventRow {
  std::int32_t step;
  std::int32_t rank;
  std::int32_t stage;
  std::int32_t replica;
  char stream[k_stream_chars];
  char kind[k_kind_chars];
  std::int32_t layer;
  std::int32_t microbatch;
  double start_s;
  double end_s;
  double bytes;
  double flops;
  std::int32_t count;
};

inline constexpr size_t k_link_chars = 48;        ///< /links/utilization link name
inline constexpr size_t k_link_class_chars = 16;  ///< /links/utilization class

struct LinkRow {
  char link[k_link_chars];
  char link_class[k_link_class_chars];
  double time_s;
  double utilization;
};

struct MemoryRow {
  std::int32_t stage;
  std::int32_t layers;
  double parameters_per_gpu;
  double inflight_microbatches;
  double weights;
  double gradients;
  double optimizer_states;
  double activations;
  double comm_buffers;
  double framework;
  double fragmentation;
  double total;
  double offloaded;
  double capacity;
  std::int8_t fits;
};

/// /run's `status` attribute (also on /failures and /checkpoints), schema 1.2.
inline constexpr const char* k_run_simulated = "simulated";
inline constexpr const char* k_run_not_simulated = "not simulated (run.duration = 0)";

inline constexpr size_t k_cause_chars = 48;  ///< /failures cause: fixed-length, null-padded

/// One row of /failures (schema 1.2): an InterruptionRecord.
struct FailureRow {
  double time_s;
  std::int32_t node;
  char cause[k_cause_chars];
  std::int8_t planned;
  double lost_work_s;
  double downtime_s;
  std::int32_t dp_after;
};

/// One row of /checkpoints (schema 1.2): a CheckpointRecord.
struct CheckpointRow {
  double start_s;
  double end_s;
  std::int64_t steps;
  double bytes;
  std::int8_t committed;
  std::int8_t async;
};

/// `file` true: the type stored in the file (packed, little-endian); false: the native
/// in-memory layout of the row struct.
Handle step_type(bool file);
Handle event_type(bool file);
Handle memory_type(bool file);
Handle link_type(bool file);
Handle failure_type(bool file);
Handle checkpoint_type(bool file);

StepRow to_row(const TraceStep& s);
EventRow to_row(const TraceEvent& e);
MemoryRow to_row(const StageMemory& m);
LinkRow to_row(const LinkSample& l);
FailureRow to_row(const InterruptionRecord& i);
CheckpointRow to_row(const CheckpointRecord& c);
TraceStep from_row(const StepRow& r);
TraceEvent from_row(const EventRow& r);
StageMemory from_row(const MemoryRow& r);
LinkSample from_row(const LinkRow& r);
InterruptionRecord from_row(const FailureRow& r);
CheckpointRecord from_row(const CheckpointRow& r);

}  // namespace trainsim::hdf5
