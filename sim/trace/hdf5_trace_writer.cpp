#include "sim/trace/hdf5_trace_writer.hpp"

#include <optional>
#include <type_traits>
#include <vector>

#include "sim/core/output_file.hpp"
#include "sim/step/step_fields.hpp"
#include "sim/trace/hdf5_handle.hpp"
#include "sim/trace/hdf5_rows.hpp"

namespace trainsim {

namespace {

using hdf5::Handle;
using hdf5::write_attribute;

template <class Row, class Item>
std::vector<Row> rows_of(const std::vector<Item>& items) {
  std::vector<Row> rows;
  rows.reserve(items.size());
  for (const Item& item : items) rows.push_back(hdf5::to_row(item));
  return rows;
}

void write_root(hid_t root, const TraceContents& c) {
  const TraceMetadata& m = c.metadata;
  write_attribute(root, "schema_version", m.schema_version);
  write_attribute(root, "source", m.source);
  write_attribute(root, "trainsim_version", m.trainsim_version);
  write_attribute(root, "simgrid_version", m.simgrid_version);
  write_attribute(root, "hdf5_version", m.hdf5_version);
  write_attribute(root, "scenario_path", m.scenario_path);
  write_attribute(root, "scenario_text", m.scenario_text);
  write_attribute(root, "scenario_overrides", m.scenario_overrides);
  write_attribute(root, "scenario_resolved", m.scenario_resolved);
  write_attribute(root, "seed", m.seed);
  write_attribute(root, "trace_level", to_string(c.level));
  write_attribute(root, "simulated_gpus", m.simulated_gpus);
  write_attribute(root, "reduce_symmetry", static_cast<std::int64_t>(m.reduce_symmetry ? 1 : 0));
  write_attribute(root, "time_unit", std::string("s (simulated)"));
}

void write_summary(hid_t root, const TraceContents& c) {
  const Handle group = hdf5::create_group(root, "summary");
  // The same list as --json (sim/step/step_fields.hpp), flattened.
  for_each_step_field(c.summary, [&group](const char* set, const char* name, const auto& value) {
    hdf5::write_number_attribute(group.get(), flat_step_field_name(set, name), value);
  });
  write_attribute(group.get(), "sim_wall_s", c.summary.sim_wall_s);
  write_attribute(group.get(), "inflight_microbatches", c.summary.inflight_microbatches);
  write_attribute(group.get(), "compute_model", c.compute_model);
  write_attribute(group.get(), "model", c.model_name);
  write_attribute(group.get(), "scenario", c.metadata.scenario_path);
  if (const std::optional<TraceVerdict>& v = c.verdict) {  // schema 1.8: what run --json says beside the metrics
    write_attribute(group.get(), "fits", static_cast<std::int64_t>(v->fits ? 1 : 0));
    write_attribute(group.get(), "capacity_bytes", v->capacity_bytes);
    write_attribute(group.get(), "headroom_bytes", v->headroom_bytes);
    write_attribute(group.get(), "validation_family", v->validation_family);
    write_attribute(group.get(), "caveats", v->caveats);
  }
  if (const std::optional<NeighbourStep>& n = c.summary.neighbour) {  // schema 1.7: variations.neighbour
    write_attribute(group.get(), "neighbour_gpus", static_cast<std::int64_t>(n->gpus));
    write_attribute(group.get(), "neighbour_steps", static_cast<std::int64_t>(n->steps));
    write_attribute(group.get(), "neighbour_step_time_s", n->step_time_s);
    write_attribute(group.get(), "neighbour_tokens_per_s_per_gpu", n->tokens_per_s_per_gpu);
  }
}

template <class Row, class Item>
Handle write_rows(hid_t root, const std::string& name, const std::vector<Item>& items, const Handle& file_type,
                  const Handle& memory_type) {
  const std::vector<Row> rows = rows_of<Row>(items);
  // HDF5 converts the native layout to the packed file layout on write.
  return hdf5::write_table(root, name, file_type.get(), memory_type.get(), rows.data(), rows.size());
}

// /run, /failures and /checkpoints (schema 1.2). Without a run-level simulation: the status
// says so, /run has no other attribute and the tables have no rows (readers need no special case).
void write_run(hid_t root, const std::optional<RunResult>& run) {
  const std::string status = run ? hdf5::k_run_simulated : hdf5::k_run_not_simulated;
  {
    const Handle group = hdf5::create_group(root, "run");
    write_attribute(group.get(), "status", status);
    if (run) {
      // The same list as --json's "run" object, so the two cannot drift apart.
      check_run_fields(*run);
      for_each_run_field(*run, [&group](const char* name, const auto& value) {
        hdf5::write_number_attribute(group.get(), name, value);
      });
    }
  }
  const std::vector<InterruptionRecord> no_interruptions;
  const std::vector<CheckpointRecord> no_checkpoints;
  {
    const Handle set = write_rows<hdf5::FailureRow>(root, "failures", run ? run->interruptions : no_interruptions,
                                                    hdf5::failure_type(true), hdf5::failure_type(false));
    write_attribute(set.get(), "status", status);
  }
  {
    const Handle set = write_rows<hdf5::CheckpointRow>(root, "checkpoints", run ? run->checkpoints : no_checkpoints,
                                                       hdf5::checkpoint_type(true), hdf5::checkpoint_type(false));
    write_attribute(set.get(), "status", status);
  }
}

}  // namespace

void write_hdf5_trace(const std::string& path, const TraceContents& c) {
  AtomicOutputFile out(path);
  hdf5::write_file(out, [&](hid_t root) {
    write_root(root, c);
    write_summary(root, c);

    const std::vector<TraceStep> no_steps;
    const std::vector<TraceEvent> no_events;
    const bool with_steps = c.level != TraceLevel::summary;
    const bool with_events = c.level == TraceLevel::events;
    {
      const Handle set = write_rows<hdf5::StepRow>(root, "steps", with_steps ? c.steps : no_steps,
                                                   hdf5::step_type(true), hdf5::step_type(false));
      write_attribute(set.get(), "written", static_cast<std::int64_t>(with_steps ? 1 : 0));
    }
    {
      const Handle set = write_rows<hdf5::EventRow>(root, "events", with_events ? c.events : no_events,
                                                    hdf5::event_type(true), hdf5::event_type(false));
      write_attribute(set.get(), "written", static_cast<std::int64_t>(with_events ? 1 : 0));
      write_attribute(set.get(), "rule", c.events_rule);
      write_attribute(set.get(), "max_events", c.max_events);
      write_attribute(set.get(), "events_observed", c.events_observed);
      write_attribute(set.get(), "aggregated", static_cast<std::int64_t>(c.events_observed > c.max_events ? 1 : 0));
      write_attribute(set.get(), "simulated_gpus", c.metadata.simulated_gpus);
      write_attribute(set.get(), "layer",
                      std::string("model chunk (virtual pipeline stage) index, not a transformer layer; -1 when "
                                  "none or aggregated"));
    }
    {
      const Handle set =
          write_rows<hdf5::MemoryRow>(root, "memory", c.memory, hdf5::memory_type(true), hdf5::memory_type(false));
      write_attribute(set.get(), "unit", std::string("bytes per GPU"));
      write_attribute(set.get(), "per",
                      std::string("pipeline stage: every GPU of a stage (all TP and DP ranks) holds the same"));
    }
    {
      const Handle group = hdf5::create_group(root, "links");
      write_attribute(
          group.get(), "status",
          std::string(c.links.empty() ? "not sampled (trainsim run --trace-links samples links)" : "produced"));
      const Handle set =
          write_rows<hdf5::LinkRow>(group.get(), "utilization", c.links, hdf5::link_type(true), hdf5::link_type(false));
      write_attribute(set.get(), "rule",
                      std::string("every link sampled at a fixed interval (about 200 samples over the step's compute); "
                                  "rows of the 8 busiest links by mean utilization, then one mean series per link "
                                  "class named class:<class> (nvlink, nic, leaf, spine)"));
      write_attribute(set.get(), "unit", std::string("used bandwidth over link bandwidth, 0..1"));
    }
    write_run(root, c.run);
  });
  out.commit();
}

}  // namespace trainsim
