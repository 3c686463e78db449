#include "sim/trace/hdf5_rows.hpp"

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace trainsim::hdf5 {

namespace {

struct Field {
  const char* name;
  size_t offset;
  hid_t native;
  hid_t stored;  ///< H5I_INVALID_HID: a string of `chars` characters
  size_t chars;
};

// Builds the compound type from the fields: native offsets in memory, packed in the file.
Handle compound(const std::vector<Field>& fields, size_t native_size, bool file) {
  std::vector<Handle> strings;
  size_t packed = 0;
  for (const Field& f : fields) packed += f.chars ? f.chars : H5Tget_size(f.stored);
  Handle type(H5Tcreate(H5T_COMPOUND, file ? packed : native_size), H5Tclose, "create compound type");
  size_t offset = 0;
  for (const Field& f : fields) {
    hid_t member = file ? f.stored : f.native;
    if (f.chars) {
      strings.push_back(fixed_string_type(f.chars));
      member = strings.back().get();
    }
    check(H5Tinsert(type.get(), f.name, file ? offset : f.offset, member), std::string("insert field ") + f.name);
    offset += H5Tget_size(member);
  }
  return type;
}

Field i32(const char* name, size_t offset) {
  return {name, offset, H5T_NATIVE_INT32, H5T_STD_I32LE, 0};
}
Field i64(const char* name, size_t offset) {
  return {name, offset, H5T_NATIVE_INT64, H5T_STD_I64LE, 0};
}
Field i8(const char* name, size_t offset) {
  return {name, offset, H5T_NATIVE_INT8, H5T_STD_I8LE, 0};
}
Field f64(const char* name, size_t offset) {
  return {name, offset, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 0};
}
Field str(const char* name, size_t offset, size_t chars) {
  return {name, offset, H5I_INVALID_HID, H5I_INVALID_HID, chars};
}

template <size_t N>
void copy_text(char (&out)[N], const std::string& text) {
  std::memset(out, 0, N);
  std::memcpy(out, text.data(), std::min(text.size(), N));
}

template <size_t N>
std::string text_of(const char (&in)[N]) {
  return std::string(in, strnlen(in, N));
}

}  // namespace

Handle step_type(bool file) {
  return compound({i32("step", offsetof(StepRow, step)), f64("start_s", offsetof(StepRow, start_s)),
                   f64("end_s", offsetof(StepRow, end_s)), f64("tokens", offsetof(StepRow, tokens)),
                   f64("samples", offsetof(StepRow, samples))},
                  sizeof(StepRow), file);
}

Handle event_type(bool file) {
  return compound({i32("step", offsetof(EventRow, step)), i32("rank", offsetof(EventRow, rank)),
                   i32("stage", offsetof(EventRow, stage)), i32("replica", offsetof(EventRow, replica)),
                   str("stream", offsetof(EventRow, stream), k_stream_chars),
                   str("kind", offsetof(EventRow, kind), k_kind_chars), i32("layer", offsetof(EventRow, layer)),
                   i32("microbatch", offsetof(EventRow, microbatch)), f64("start_s", offsetof(EventRow, start_s)),
                   f64("end_s", offsetof(EventRow, end_s)), f64("bytes", offsetof(EventRow, bytes)),
                   f64("flops", offsetof(EventRow, flops)), i32("count", offsetof(EventRow, count))},
                  sizeof(EventRow), file);
}

Handle link_type(bool file) {
  return compound({str("link", offsetof(LinkRow, link), k_link_chars),
                   str("class", offsetof(LinkRow, link_class), k_link_class_chars),
                   f64("time_s", offsetof(LinkRow, time_s)), f64("utilization", offsetof(LinkRow, utilization))},
                  sizeof(LinkRow), file);
}

LinkRow to_row(const LinkSample& l) {
  LinkRow r{};
  copy_text(r.link, l.link);
  copy_text(r.link_class, l.link_class);
  r.time_s = l.time_s;
  r.utilization = l.utilization;
  return r;
}

LinkSample from_row(const LinkRow& r) {
  return {text_of(r.link), text_of(r.link_class), r.time_s, r.utilization};
}

Handle failure_type(bool file) {
  return compound(
      {f64("time_s", offsetof(FailureRow, time_s)), i32("node", offsetof(FailureRow, node)),
       str("cause", offsetof(FailureRow, cause), k_cause_chars), i8("planned", offsetof(FailureRow, planned)),
       f64("lost_work_s", offsetof(FailureRow, lost_work_s)), f64("downtime_s", offsetof(FailureRow, downtime_s)),
       i32("dp_after", offsetof(FailureRow, dp_after))},
      sizeof(FailureRow), file);
}

Handle checkpoint_type(bool file) {
  return compound({f64("start_s", offsetof(CheckpointRow, start_s)), f64("end_s", offsetof(CheckpointRow, end_s)),
                   i64("steps", offsetof(CheckpointRow, steps)), f64("bytes", offsetof(CheckpointRow, bytes)),
                   i8("committed", offsetof(CheckpointRow, committed)), i8("async", offsetof(CheckpointRow, async))},
                  sizeof(CheckpointRow), file);
}

FailureRow to_row(const InterruptionRecord& i) {
  FailureRow r{};
  r.time_s = i.time_s;
  r.node = i.node;
  copy_text(r.cause, i.cause);
  r.planned = i.planned ? 1 : 0;
  r.lost_work_s = i.lost_work_s;
  r.downtime_s = i.downtime_s;
  r.dp_after = i.dp_after;
  return r;
}

InterruptionRecord from_row(const FailureRow& r) {
  return {r.time_s, r.node, text_of(r.cause), r.planned != 0, r.lost_work_s, r.downtime_s, r.dp_after};
}

CheckpointRow to_row(const CheckpointRecord& c) {
  CheckpointRow r{};
  r.start_s = c.start_s;
  r.end_s = c.end_s;
  r.steps = c.steps;
  r.bytes = c.bytes;
  r.committed = c.committed ? 1 : 0;
  r.async = c.async ? 1 : 0;
  return r;
}

CheckpointRecord from_row(const CheckpointRow& r) {
  return {r.start_s, r.end_s, r.steps, r.bytes, r.committed != 0, r.async != 0};
}

Handle memory_type(bool file) {
  return compound(
      {i32("stage", offsetof(MemoryRow, stage)), i32("layers", offsetof(MemoryRow, layers)),
       f64("parameters_per_gpu", offsetof(MemoryRow, parameters_per_gpu)),
       f64("inflight_microbatches", offsetof(MemoryRow, inflight_microbatches)),
       f64("weights", offsetof(MemoryRow, weights)), f64("gradients", offsetof(MemoryRow, gradients)),
       f64("optimizer_states", offsetof(MemoryRow, optimizer_states)),
       f64("activations", offsetof(MemoryRow, activations)), f64("comm_buffers", offsetof(MemoryRow, comm_buffers)),
       f64("framework", offsetof(MemoryRow, framework)), f64("fragmentation", offsetof(MemoryRow, fragmentation)),
       f64("total", offsetof(MemoryRow, total)), f64("offloaded", offsetof(MemoryRow, offloaded)),
       f64("capacity", offsetof(MemoryRow, capacity)), i8("fits", offsetof(MemoryRow, fits))},
      sizeof(MemoryRow), file);
}

StepRow to_row(const TraceStep& s) {
  return {s.step, s.start_s, s.end_s, s.tokens, s.samples};
}

TraceStep from_row(const StepRow& r) {
  return {r.step, r.start_s, r.end_s, r.tokens, r.samples};
}

EventRow to_row(const TraceEvent& e) {
  EventRow r{};
  r.step = e.step;
  r.rank = e.rank;
  r.stage = e.stage;
  r.replica = e.replica;
  copy_text(r.stream, e.stream);
  copy_text(r.kind, e.kind);
  r.layer = e.layer;
  r.microbatch = e.microbatch;
  r.start_s = e.start_s;
  r.end_s = e.end_s;
  r.bytes = e.bytes;
  r.flops = e.flops;
  r.count = e.count;
  return r;
}

TraceEvent from_row(const EventRow& r) {
  TraceEvent e;
  e.step = r.step;
  e.rank = r.rank;
  e.stage = r.stage;
  e.replica = r.replica;
  e.stream = text_of(r.stream);
  e.kind = text_of(r.kind);
  e.layer = r.layer;
  e.microbatch = r.microbatch;
  e.start_s = r.start_s;
  e.end_s = r.end_s;
  e.bytes = r.bytes;
  e.flops = r.flops;
  e.count = r.count;
  return e;
}

MemoryRow to_row(const StageMemory& m) {
  MemoryRow r{};
  r.stage = m.stage;
  r.layers = m.layers;
  r.parameters_per_gpu = m.parameters_per_gpu;
  r.inflight_microbatches = m.inflight_microbatches;
  r.weights = m.bytes.weights;
  r.gradients = m.bytes.gradients;
  r.optimizer_states = m.bytes.optimizer_states;
  r.activations = m.bytes.activations;
  r.comm_buffers = m.bytes.comm_buffers;
  r.framework = m.bytes.framework;
  r.fragmentation = m.bytes.fragmentation;
  r.total = m.bytes.total();
  r.offloaded = m.offloaded_bytes;
  r.capacity = m.capacity_bytes;
  r.fits = m.fits() ? 1 : 0;
  return r;
}

StageMemory from_row(const MemoryRow& r) {
  StageMemory m;
  m.stage = r.stage;
  m.layers = r.layers;
  m.parameters_per_gpu = r.parameters_per_gpu;
  m.inflight_microbatches = r.inflight_microbatches;
  m.bytes.weights = r.weights;
  m.bytes.gradients = r.gradients;
  m.bytes.optimizer_states = r.optimizer_states;
  m.bytes.activations = r.activations;
  m.bytes.comm_buffers = r.comm_buffers;
  m.bytes.framework = r.framework;
  m.bytes.fragmentation = r.fragmentation;
  m.offloaded_bytes = r.offloaded;
  m.capacity_bytes = r.capacity;
  return m;
}

}  // namespace trainsim::hdf5
