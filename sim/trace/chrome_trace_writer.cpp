#include "sim/trace/chrome_trace_writer.hpp"

#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>

#include "sim/core/output_file.hpp"
#include "sim/trace/pipeline_flows.hpp"
#include "sim/trace/trace_time.hpp"

namespace trainsim {

namespace {

// The step's streams, then a replayed trace's collectives (trainsim replay: `comm`).
constexpr std::array<const char*, 6> k_streams{"compute", "tp_comm", "pp_comm", "dp_comm", "data", "comm"};
constexpr int k_threads_per_gpu = 8;  // room for the streams, fixed so that thread ids are stable

int stream_index(const std::string& stream) {
  for (size_t i = 0; i < k_streams.size(); ++i)
    if (stream == k_streams[i]) return static_cast<int>(i);
  return static_cast<int>(k_streams.size());
}

}  // namespace

void write_chrome_trace(const std::string& path, const std::vector<TraceEvent>& events, int gpus_per_node,
                        const TraceMetadata& metadata, const TrackNotes& notes) {
  const int per_node = gpus_per_node > 0 ? gpus_per_node : 1;
  AtomicOutputFile file(path);
  {
    std::ostringstream out;
    // Hands what is formatted to the file every megabyte or so (the file buffers and checks).
    auto spill = [&] {
      file.append(out.str());
      out.str({});
    };
    nlohmann::json meta;
    meta["trainsim_version"] = metadata.trainsim_version;
    meta["scenario"] = metadata.scenario_path;  // a replay's trace prefix
    meta["simulated_gpus"] = metadata.simulated_gpus;
    // A replay's prefix is the user's path, in bytes: `replay $'c\xff/step' --chrome-trace t.json`
    // ended with "internal error: [json.exception.type_error.316]" after the replay. Such bytes
    // are written as U+FFFD, as in every --json result (cli/json_output.hpp).
    out << "{\"displayTimeUnit\":\"ms\",\"otherData\":"
        << meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << ",\"traceEvents\":[\n";
    std::set<std::pair<int, int>> threads;
    bool first = true;
    auto line = [&](const nlohmann::json& j) {
      out << (first ? "" : ",\n") << j.dump();
      first = false;
    };
    std::map<int, std::string> rank_notes;  // a rank's (replica, stage) note, if any
    for (const TraceEvent& e : events) {
      threads.insert({e.rank, stream_index(e.stream)});
      if (const auto note = notes.find({e.replica, e.stage}); note != notes.end())
        rank_notes.emplace(e.rank, " (" + note->second + ")");
    }
    std::set<int> nodes;
    for (const auto& [rank, stream] : threads) {
      const int node = rank / per_node;
      if (nodes.insert(node).second) {
        line({{"ph", "M"},
              {"name", "process_name"},
              {"pid", node},
              {"args", {{"name", "node " + std::to_string(node)}}}});
        line({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", node}, {"args", {{"sort_index", node}}}});
      }
      const int tid = (rank % per_node) * k_threads_per_gpu + stream;
      const std::string stream_name = stream < static_cast<int>(k_streams.size()) ? k_streams[stream] : "other";
      line({{"ph", "M"},
            {"name", "thread_name"},
            {"pid", node},
            {"tid", tid},
            {"args", {{"name", "rank " + std::to_string(rank) + " " + stream_name + rank_notes[rank]}}}});
      line({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", node}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
    }
    // Each pipeline transfer as a flow from the pass that sent it to the transfer the next stage
    // waited for, bound to both slices by id (Perfetto's JSON importer: an "X" event with
    // "bind_id" and "flow_out" begins a flow on itself, one with "flow_in" ends it there; ids
    // 1, 2, ... in the order of the transfers).
    std::map<std::size_t, std::pair<std::size_t, const char*>> flow_of;  // event -> (id, direction)
    std::size_t id = 0;
    for (const PipelineFlow& f : pipeline_flows(events)) {
      if (flow_of.count(f.from) || flow_of.count(f.to)) continue;  // a slice binds one flow
      ++id;
      flow_of.emplace(f.from, std::pair{id, "flow_out"});
      flow_of.emplace(f.to, std::pair{id, "flow_in"});
    }
    for (std::size_t i = 0; i < events.size(); ++i) {
      const TraceEvent& e = events[i];
      const int node = e.rank / per_node;
      const int tid = (e.rank % per_node) * k_threads_per_gpu + stream_index(e.stream);
      // A replayed trace's node names are the producer's bytes: invalid UTF-8 is replaced.
      out << (first ? "" : ",\n") << "{\"ph\":\"X\",\"name\":"
          << nlohmann::json(e.kind).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
          << ",\"cat\":" << nlohmann::json(e.stream).dump() << ",\"pid\":" << node << ",\"tid\":" << tid
          << ",\"ts\":" << trace_micros(trace_nanoseconds(e.start_s))
          << ",\"dur\":" << trace_micros(trace_nanoseconds(e.end_s) - trace_nanoseconds(e.start_s))
          << ",\"args\":{\"step\":" << e.step << ",\"stage\":" << e.stage << ",\"replica\":" << e.replica
          << ",\"layer\":" << e.layer << ",\"microbatch\":" << e.microbatch
          << ",\"bytes\":" << nlohmann::json(e.bytes).dump() << ",\"flops\":" << nlohmann::json(e.flops).dump()
          << ",\"count\":" << e.count << "}";
      if (const auto flow = flow_of.find(i); flow != flow_of.end())
        out << ",\"bind_id\":" << flow->second.first << ",\"" << flow->second.second << "\":true";
      out << "}";
      first = false;
      if (out.tellp() > (1 << 20)) spill();
    }
    out << "\n]}\n";
    spill();
  }
  file.commit();
}

}  // namespace trainsim
