#include "sim/trace/kineto_trace_writer.hpp"

#include <array>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "sim/core/new_output_folder.hpp"
#include "sim/trace/trace_time.hpp"

namespace trainsim {

namespace {

// Each trainsim stream's CUDA stream number (the `stream` arg and the track's tid). 7 is the
// default stream and 20 to 22 the NCCL streams of the profile in data/profiles
// (trace-diff-control-step1011.json.gz); the rest follow.
struct StreamTrack {
  std::string_view stream;
  int id;
};
constexpr std::array<StreamTrack, 5> k_tracks{
    {{"compute", 7}, {"tp_comm", 20}, {"pp_comm", 21}, {"dp_comm", 22}, {"comm", 23}}};
constexpr int k_copy_stream = 24;   // offload copies (trainsim records them on compute)
constexpr int k_other_stream = 25;  // a stream this table lacks
constexpr int k_host_pid = 100000;  // the host process and thread (one per file): not a device number

int stream_id(const std::string& stream) {
  for (const StreamTrack& t : k_tracks)
    if (stream == t.stream) return t.id;
  return k_other_stream;
}

// NCCL's name of the collective a kind ends in (tp_allreduce, ep_alltoall, zero_allgather, ...).
// All-to-all, pipeline transfers and ring exchanges run as NCCL's grouped send/receive kernel.
std::string nccl_op(const std::string& kind) {
  static const std::array<std::pair<std::string_view, std::string_view>, 10> ops{{{"allreduce", "AllReduce"},
                                                                                  {"allgather", "AllGather"},
                                                                                  {"reducescatter", "ReduceScatter"},
                                                                                  {"broadcast", "Broadcast"},
                                                                                  {"alltoall", "SendRecv"},
                                                                                  {"sendrecv", "SendRecv"},
                                                                                  {"transfer", "SendRecv"},
                                                                                  {"send", "SendRecv"},
                                                                                  {"recv", "SendRecv"},
                                                                                  {"exchange", "SendRecv"}}};
  const std::string suffix = kind.substr(kind.rfind('_') + 1);
  for (const auto& [name, op] : ops)
    if (suffix == name) return std::string(op);
  return "Collective";  // dp_reduce: all-reduce or reduce-scatter, HSDP's phases, one slice
}

bool is_copy(const TraceEvent& e) {
  return e.kind == "offload_wait";
}

bool on_host(const TraceEvent& e) {
  return e.stream == "data";  // data_wait: the GPU idles while the host loads
}

std::string quoted(const std::string& text) {
  // A replayed trace's names are the producer's bytes: invalid UTF-8 is replaced.
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One complete event, its times in microseconds with nanosecond resolution.
std::string complete_event(const std::string& cat, const std::string& name, int pid, int tid, double start_s,
                           double end_s, const std::string& args) {
  const long long start = trace_nanoseconds(start_s);
  return "{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":" + quoted(name) + ",\"pid\":" + std::to_string(pid) +
         ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + trace_micros(start) +
         ",\"dur\":" + trace_micros(trace_nanoseconds(end_s) - start) + ",\"args\":" + args + "}";
}

std::string metadata_event(const std::string& name, int pid, int tid, const nlohmann::ordered_json& args) {
  nlohmann::ordered_json j{{"ph", "M"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"args", args}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// What trainsim knows of the activity, beside HTA's args.
std::string gpu_args(const TraceEvent& e, int device, int stream, long long correlation) {
  std::ostringstream a;
  a << "{\"External id\":" << correlation << ",\"device\":" << device << ",\"stream\":" << stream
    << ",\"correlation\":" << correlation;
  if (e.bytes > 0) a << ",\"bytes\":" << std::llround(e.bytes);
  a << ",\"trainsim kind\":" << quoted(e.kind) << ",\"step\":" << e.step << ",\"stage\":" << e.stage
    << ",\"replica\":" << e.replica << ",\"chunk\":" << e.layer << ",\"microbatch\":" << e.microbatch
    << ",\"flops\":" << nlohmann::json(e.flops).dump() << ",\"count\":" << e.count << "}";
  return a.str();
}

std::string rank_trace(int rank, const std::vector<const TraceEvent*>& events, const TraceContents& c,
                       const KinetoJob& job) {
  const int per_node = job.gpus_per_node > 0 ? job.gpus_per_node : 1;
  const int device = rank % per_node;
  std::ostringstream out;
  // One key a line, distributedInfo first: HTA finds the rank with a line-by-line regex that
  // wants a space after "rank": (trace_file.py, create_rank_to_trace_dict).
  out << "{\n\"schemaVersion\": 1,\n\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " << rank
      << ", \"world_size\": " << job.world_size << "},\n";
  nlohmann::ordered_json device_properties = nlohmann::ordered_json::array(
      {{{"id", device}, {"name", job.gpu_name}, {"totalGlobalMem", std::llround(job.gpu_memory_bytes)}}});
  out << "\"deviceProperties\": " << device_properties.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
      << ",\n";
  nlohmann::ordered_json about{{"source", "trainsim run"},
                               {"trainsim_version", c.metadata.trainsim_version},
                               {"scenario", c.metadata.scenario_path},
                               {"simulated_gpus", c.metadata.simulated_gpus},
                               {"events",
                                "simulated activities, not kernels; launches are placed at each start, "
                                "the host is not simulated"}};
  out << "\"trainsim\": " << about.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << ",\n";
  out << "\"displayTimeUnit\": \"ms\",\n\"traceEvents\": [\n";
  bool first = true;
  auto line = [&](const std::string& text) {
    out << (first ? "" : ",\n") << text;
    first = false;
  };
  const std::string r = "rank " + std::to_string(rank);
  line(metadata_event("process_name", k_host_pid, 0, {{"name", "trainsim " + r + " host"}}));
  line(metadata_event("process_labels", k_host_pid, 0, {{"labels", "CPU"}}));
  line(metadata_event("process_name", device, 0, {{"name", "trainsim " + r}}));
  line(metadata_event("process_labels", device, 0, {{"labels", "GPU " + std::to_string(device)}}));
  std::set<std::pair<int, std::string>> streams;
  for (const TraceEvent* e : events)
    if (!on_host(*e))
      streams.insert(is_copy(*e) ? std::pair{k_copy_stream, std::string("offload copies")}
                                 : std::pair{stream_id(e->stream), e->stream});
  for (const auto& [id, name] : streams)
    line(metadata_event("thread_name", device, id, {{"name", "stream " + std::to_string(id) + " " + name}}));
  for (const TraceStep& s : c.steps)
    line(complete_event("user_annotation", "ProfilerStep#" + std::to_string(s.step), k_host_pid, k_host_pid, s.start_s,
                        s.end_s, "{}"));
  long long correlation = 0;
  bool after_forward = false;  // the pass an offload copy follows: a forward stores, a backward reloads
  for (const TraceEvent* e : events) {
    if (on_host(*e)) {
      line(complete_event("user_annotation", e->kind, k_host_pid, k_host_pid, e->start_s, e->end_s, "{}"));
      continue;
    }
    ++correlation;
    const bool copy = is_copy(*e);
    const int stream = copy ? k_copy_stream : stream_id(e->stream);
    line(complete_event(
        "cuda_runtime", copy ? "cudaMemcpyAsync" : "cudaLaunchKernel", k_host_pid, k_host_pid, e->start_s, e->start_s,
        "{\"External id\":" + std::to_string(correlation) + ",\"correlation\":" + std::to_string(correlation) + "}"));
    line(complete_event(copy ? "gpu_memcpy" : "kernel", kineto_event_name(*e, after_forward), device, stream,
                        e->start_s, e->end_s, gpu_args(*e, device, stream, correlation)));
    if (e->stream == "compute" && !copy) after_forward = e->kind == "forward";
  }
  out << "\n]\n}\n";
  return out.str();
}

std::map<int, std::vector<const TraceEvent*>> events_by_rank(const std::vector<TraceEvent>& events) {
  std::map<int, std::vector<const TraceEvent*>> by_rank;
  for (const TraceEvent& e : events) by_rank[e.rank].push_back(&e);
  return by_rank;
}

}  // namespace

std::vector<int> kineto_ranks(const std::vector<TraceEvent>& events) {
  std::set<int> ranks;
  for (const TraceEvent& e : events) ranks.insert(e.rank);
  return {ranks.begin(), ranks.end()};
}

std::string kineto_file_name(int rank) {
  return "rank-" + std::to_string(rank) + ".pt.trace.json";
}

std::string kineto_event_name(const TraceEvent& e, bool after_forward) {
  if (is_copy(e)) return after_forward ? "Memcpy DtoH (Device -> Pinned)" : "Memcpy HtoD (Pinned -> Device)";
  if (e.stream == "compute" || on_host(e)) return e.kind;
  return "ncclDevKernel_" + nccl_op(e.kind) + "(trainsim " + e.kind + ")";
}

std::string kineto_trace_json(int rank, const TraceContents& c, const KinetoJob& job) {
  auto by_rank = events_by_rank(c.events);
  return rank_trace(rank, by_rank[rank], c, job);
}

int write_kineto_traces(const std::string& dir, const TraceContents& c, const KinetoJob& job) {
  NewOutputFolder folder(dir);
  const auto by_rank = events_by_rank(c.events);
  for (const auto& [rank, events] : by_rank) folder.add(kineto_file_name(rank), rank_trace(rank, events, c, job));
  folder.commit();
  return static_cast<int>(by_rank.size());
}

}  // namespace trainsim
