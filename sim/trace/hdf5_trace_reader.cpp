#include "sim/trace/hdf5_trace_reader.hpp"

#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/step/step_fields.hpp"
#include "sim/trace/hdf5_handle.hpp"
#include "sim/trace/hdf5_rows.hpp"

namespace trainsim {

namespace {

using hdf5::Handle;

template <class Row, class Item>
std::vector<Item> read_rows(hid_t root, const std::string& name, const Handle& memory_type) {
  size_t rows = 0;
  const std::vector<char> data = hdf5::read_table(root, name, memory_type.get(), sizeof(Row), rows);
  std::vector<Item> items;
  items.reserve(rows);
  for (size_t i = 0; i < rows; ++i) {
    Row row;
    std::memcpy(&row, data.data() + i * sizeof(Row), sizeof(Row));
    items.push_back(hdf5::from_row(row));
  }
  return items;
}

Handle open_group(hid_t root, const std::string& name) {
  return Handle(H5Gopen2(root, name.c_str(), H5P_DEFAULT), H5Gclose, "open group " + name);
}

Handle open_dataset(hid_t root, const std::string& name) {
  return Handle(H5Dopen2(root, name.c_str(), H5P_DEFAULT), H5Dclose, "open dataset " + name);
}

// /run, /failures and /checkpoints (schema 1.2); nullopt when no run was simulated, and for
// 1.0 and 1.1 traces, which have no /run (and reserved, empty groups /failures, /checkpoints).
std::optional<RunResult> read_run(hid_t root) {
  if (!hdf5::has_link(root, "run")) return std::nullopt;
  const Handle group = open_group(root, "run");
  if (hdf5::read_string_attribute(group.get(), "status") != hdf5::k_run_simulated) return std::nullopt;
  RunResult r;
  for_each_run_field(
      r, [&group](const char* name, auto& value) { hdf5::read_number_attribute(group.get(), name, value); });
  r.interruptions = read_rows<hdf5::FailureRow, InterruptionRecord>(root, "failures", hdf5::failure_type(false));
  r.checkpoints = read_rows<hdf5::CheckpointRow, CheckpointRecord>(root, "checkpoints", hdf5::checkpoint_type(false));
  return r;
}

}  // namespace

TraceContents read_hdf5_trace(const std::string& path) {
  const hdf5::QuietErrors quiet;
  const Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open " + path);
  const hid_t root = file.get();
  TraceContents c;
  TraceMetadata& m = c.metadata;
  m.schema_version = hdf5::read_string_attribute(root, "schema_version");
  if (m.schema_version.rfind("1.", 0) != 0)
    throw Error(path + ": trace schema version " + m.schema_version + " is not 1.x");
  m.trainsim_version = hdf5::read_string_attribute(root, "trainsim_version");
  m.simgrid_version = hdf5::read_string_attribute(root, "simgrid_version");
  m.hdf5_version = hdf5::read_string_attribute(root, "hdf5_version");
  m.scenario_path = hdf5::read_string_attribute(root, "scenario_path");
  m.scenario_text = hdf5::read_string_attribute(root, "scenario_text");
  m.scenario_overrides = hdf5::read_string_attribute(root, "scenario_overrides");
  m.scenario_resolved = hdf5::read_string_attribute(root, "scenario_resolved");
  m.seed = hdf5::read_uint_attribute(root, "seed");
  m.simulated_gpus = hdf5::read_string_attribute(root, "simulated_gpus");
  m.reduce_symmetry = hdf5::read_int_attribute(root, "reduce_symmetry") != 0;
  c.level = parse_trace_level(hdf5::read_string_attribute(root, "trace_level"), "trace_level");

  {
    const Handle group = open_group(root, "summary");
    for_each_step_field(c.summary, [&group](const char* set, const char* name, auto& value) {
      hdf5::read_number_attribute(group.get(), flat_step_field_name(set, name), value);
    });
    c.summary.sim_wall_s = hdf5::read_double_attribute(group.get(), "sim_wall_s");
    c.summary.inflight_microbatches = hdf5::read_doubles_attribute(group.get(), "inflight_microbatches");
    c.compute_model = hdf5::read_string_attribute(group.get(), "compute_model");
    c.model_name = hdf5::read_string_attribute(group.get(), "model");
    if (hdf5::has_attribute(group.get(), "validation_family")) {  // schema 1.8
      TraceVerdict v;
      v.fits = hdf5::read_int_attribute(group.get(), "fits") != 0;
      v.capacity_bytes = hdf5::read_double_attribute(group.get(), "capacity_bytes");
      v.headroom_bytes = hdf5::read_double_attribute(group.get(), "headroom_bytes");
      v.validation_family = hdf5::read_string_attribute(group.get(), "validation_family");
      v.caveats = hdf5::read_string_attribute(group.get(), "caveats");
      c.verdict = v;
    }
    if (hdf5::has_attribute(group.get(), "neighbour_step_time_s")) {  // schema 1.7
      NeighbourStep n;
      n.gpus = static_cast<int>(hdf5::read_int_attribute(group.get(), "neighbour_gpus"));
      n.steps = static_cast<int>(hdf5::read_int_attribute(group.get(), "neighbour_steps"));
      n.step_time_s = hdf5::read_double_attribute(group.get(), "neighbour_step_time_s");
      n.tokens_per_s_per_gpu = hdf5::read_double_attribute(group.get(), "neighbour_tokens_per_s_per_gpu");
      c.summary.neighbour = n;
    }
  }
  c.steps = read_rows<hdf5::StepRow, TraceStep>(root, "steps", hdf5::step_type(false));
  c.events = read_rows<hdf5::EventRow, TraceEvent>(root, "events", hdf5::event_type(false));
  {
    const Handle set = open_dataset(root, "events");
    c.events_rule = hdf5::read_string_attribute(set.get(), "rule");
    c.max_events = hdf5::read_int_attribute(set.get(), "max_events");
    c.events_observed = hdf5::read_int_attribute(set.get(), "events_observed");
  }
  c.memory = read_rows<hdf5::MemoryRow, StageMemory>(root, "memory", hdf5::memory_type(false));
  if (hdf5::has_link(root, "links")) {  // schema 1.1
    const Handle links = open_group(root, "links");
    c.links = read_rows<hdf5::LinkRow, LinkSample>(links.get(), "utilization", hdf5::link_type(false));
  }
  c.run = read_run(root);
  return c;
}

}  // namespace trainsim
