// `trainsim replay PREFIX [--cluster PRESET] [--nodes N] [--json] [--chrome-trace FILE]
// [--compute-from-ops]`: a captured Chakra workload (PREFIX.0.et, PREFIX.1.et, ...) replayed on a simulated cluster
// (sim/workload/README.md): its time, each kind's share, the communications it ran, and each
// rank's timeline for Perfetto.

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <boost/program_options/variables_map.hpp>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>
#include <type_traits>

#include "sim/cli/command.hpp"
#include "sim/cli/command_line.hpp"
#include "sim/cli/full_platform_limit.hpp"
#include "sim/cli/formatted_number.hpp"
#include "sim/cli/json_output.hpp"
#include "sim/compute/roofline_compute_model.hpp"
#include "sim/core/checked_output.hpp"
#include "sim/core/distinct_outputs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/library_versions.hpp"
#include "sim/core/nearest_name.hpp"
#include "sim/core/output_file.hpp"
#include "sim/scenario/scenario_rules.hpp"
#include "sim/scenario/value_parsers.hpp"
#include "sim/step/step_fields.hpp"
#include "sim/trace/chrome_trace_writer.hpp"
#include "sim/trace/hdf5_trace_writer.hpp"
#include "sim/workload/export_folder.hpp"
#include "sim/workload/replay_simulation.hpp"
#include "sim/workload/workload.hpp"
#include "topologies/cluster_spec.hpp"
#include "trainsim/version.hpp"

namespace trainsim::cli {

namespace {

namespace po = boost::program_options;
namespace wl = trainsim::workload;

constexpr const char* k_command = "trainsim replay";

// The nodes a Chrome trace holds at most (the first to end), as `trainsim run` caps its events.
constexpr std::size_t k_max_trace_events = 2'000'000;

// The communications --json lists one by one; the totals count them all.
constexpr size_t k_max_listed_comms = 10000;

struct Options {
  std::string prefix;
  std::string cluster = "dgx-h100";
  std::string nodes;  ///< as given: boost's own int parse said "the argument ('1e9') ... is invalid"
  bool nodes_given = false;
  std::string chrome_trace;  ///< empty: none
  std::string trace;         ///< HDF5; empty: none
  bool compute_from_ops = false;
  bool json = false;
  bool help = false;
};

Options parse(const std::vector<std::string>& args, std::string& usage) {
  Options o;
  po::options_description d("Options", 120);
  d.add_options()("help,h", "show this help")(
      "cluster", po::value(&o.cluster)->default_value(o.cluster),
      ("cluster preset (" + cluster_preset_list() + "); rank r runs on GPU r").c_str())(
      "nodes", po::value(&o.nodes), "nodes of the cluster; default: whole NVLink domains enough for the ranks")(
      "json", "every number as JSON")(
      "trace", po::value(&o.trace)->value_name("FILE"),
      "write an HDF5 trace of the replay: /summary, /steps and every rank's nodes in /events (analysis/SCHEMA.md)")(
      "chrome-trace", po::value(&o.chrome_trace)->value_name("FILE"),
      "write every rank's compute and communication nodes as a Chrome trace (JSON) "
      "for Perfetto")(
      "compute-from-ops",
      "time GPU kernels that recorded num_ops or tensor_size by the cluster GPU's datasheet roofline (bf16) "
      "instead of their recorded durations");
  std::ostringstream u;
  u << "usage: trainsim replay PREFIX [--cluster PRESET] [--nodes N] [--json] [--trace FILE] [--chrome-trace FILE] "
       "[--compute-from-ops]\n\n"
       "replays the Chakra execution traces PREFIX.0.et, PREFIX.1.et, ... (one per rank) on a simulated cluster\n\n"
    << d;
  usage = u.str();
  po::options_description all;
  all.add(d).add_options()("prefix", po::value(&o.prefix));
  const po::variables_map vm = parse_command_line(args, all, k_command, "prefix");
  o.help = vm.count("help") > 0;
  o.json = vm.count("json") > 0;
  o.nodes_given = vm.count("nodes") > 0;
  o.compute_from_ops = vm.count("compute-from-ops") > 0;
  // An output given an empty name ("$UNSET") is refused, not taken as no output.
  if (vm.count("trace") && o.trace.empty()) check_output_path(o.trace, "--trace");
  if (vm.count("chrome-trace") && o.chrome_trace.empty()) check_output_path(o.chrome_trace, "--chrome-trace");
  return o;
}

ClusterSpec cluster_of(const Options& o, int ranks) {
  const auto preset = cluster_preset(o.cluster);
  if (!preset) {
    std::string rule = "expected one of";
    for (const auto& n : cluster_preset_names()) rule += " " + n;
    if (const auto near = nearest_name(o.cluster, cluster_preset_names())) rule += "; did you mean '" + *near + "'?";
    throw InputError(k_command, "--cluster", o.cluster, rule);
  }
  ClusterSpec c = *preset;
  // Every GPU of the cluster is built, whatever the ranks (full_platform_limit.hpp).
  const int max_nodes = k_max_full_platform_gpus / c.gpus_per_node;
  if (o.nodes_given) {
    const std::optional<long long> nodes = parse::integer(o.nodes);
    if (!nodes || *nodes < 1 || *nodes > max_nodes)
      throw InputError(k_command, "--nodes", o.nodes,
                       "must be 1 to " + std::to_string(max_nodes) + " (" + std::to_string(k_max_full_platform_gpus) +
                           " GPUs, the most a replay's cluster has: every GPU is simulated)");
    c.nodes = static_cast<int>(*nodes);
  } else {
    // Whole NVLink domains (whole nodes on DGX/HGX; whole racks on NVL72), as collective does.
    c.nodes = (ranks + c.domain_gpus() - 1) / c.domain_gpus() * c.nodes_per_domain();
  }
  if (c.total_gpus() < ranks)
    throw InputError(k_command, "--nodes", std::to_string(c.nodes),
                     std::to_string(c.total_gpus()) + " GPUs, fewer than the workload's " + std::to_string(ranks) +
                         " ranks (one GPU per rank)");
  return c;
}

struct KindTotal {
  std::uint64_t count = 0;
  double bytes = 0;
  double time_s = 0;
  double bus_bytes = 0;  // bytes x bus factor, for the aggregate bus bandwidth
};

// Every rank's played nodes, as the trace writers take them: its compute stream, its
// collectives and its point-to-point transfers (streams compute, comm and pp_comm).
std::vector<TraceEvent> timeline_events(const wl::ReplayResult& r) {
  std::vector<TraceEvent> events;
  events.reserve(r.events.size());
  for (const wl::ReplayEvent& e : r.events) {
    TraceEvent t;
    t.rank = e.rank;
    t.stream = e.stream;
    t.kind = e.name;
    t.start_s = e.start_s;
    t.end_s = e.end_s;
    t.bytes = e.bytes;
    events.push_back(std::move(t));
  }
  return events;
}

TraceMetadata trace_metadata(const Options& o, const ClusterSpec& cluster) {
  TraceMetadata m;
  m.trainsim_version = k_version;
  m.simgrid_version = simgrid_runtime_version();
  m.hdf5_version = hdf5_runtime_version();
  m.scenario_path = o.prefix;
  m.scenario_overrides = "--cluster " + cluster.preset + " --nodes " + std::to_string(cluster.nodes) +
                         (o.compute_from_ops ? "\n--compute-from-ops" : "");
  m.simulated_gpus = "every rank of the replayed trace; rank r on GPU r of the " + cluster.preset + " cluster";
  m.reduce_symmetry = false;
  m.source = "trainsim replay";
  return m;
}

// The replay as an HDF5 trace: /summary holds what a trace defines (its time, GPUs, exposed
// communication), NaN for the rest (tokens, FLOPs, memory, the step's breakdown); one row in
// /steps; every rank's nodes in /events.
TraceContents trace_contents(const Options& o, const wl::ReplayResult& r, const ClusterSpec& cluster, int ranks,
                             const ComputeModel& roofline) {
  TraceContents c;
  c.metadata = trace_metadata(o, cluster);
  c.level = TraceLevel::events;
  for_each_step_field(c.summary, [](const char*, const char*, auto& value) {
    if constexpr (std::is_floating_point_v<std::decay_t<decltype(value)>>)
      value = std::numeric_limits<double>::quiet_NaN();
  });
  c.summary.step_time_s = r.replay_time_s;
  c.summary.gpus = ranks;
  c.summary.steps = 1;
  double exposed = 0;
  for (const wl::RankReplay& rr : r.ranks) exposed += rr.exposed_comm_s / ranks;
  c.summary.exposed_comm_fraction = r.replay_time_s > 0 ? exposed / r.replay_time_s : 0;
  c.compute_model = o.compute_from_ops ? roofline.description() : "the trace's recorded durations";
  c.steps.push_back(
      {0, 0.0, r.replay_time_s, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()});
  c.events = timeline_events(r);
  c.events_observed = static_cast<std::int64_t>(r.events.size() + r.events_dropped);
  c.max_events = static_cast<std::int64_t>(k_max_trace_events);
  c.events_rule = "every compute and communication node each rank played, the first " +
                  std::to_string(k_max_trace_events) + " to end; later ones left out";
  return c;
}
}  // namespace

Command replay_command() {
  Command c;
  c.name = "replay";
  c.summary = "replays a Chakra execution trace (one file per rank) on a simulated cluster";
  c.run = [](const std::vector<std::string>& args, std::ostream& out) {
    std::string usage;
    const Options o = parse(args, usage);
    if (o.help) {
      out << usage;
      return 0;
    }
    if (o.prefix.empty()) throw InputError(k_command, "PREFIX", "", "give the traces' prefix (PREFIX.0.et, ...)");
    if (!o.chrome_trace.empty()) check_output_path(o.chrome_trace, "--chrome-trace");
    if (!o.trace.empty()) check_output_path(o.trace, "--trace");
    const wl::Workload w = wl::read_workload(o.prefix);
    std::vector<std::string> inputs;
    for (const wl::RankTrace& t : w.ranks) inputs.push_back(t.path);
    // An export's manifest and comm-group configuration are read too (they are checked against
    // each rank): an output over one of them breaks the export.
    if (const auto manifest = wl::read_export_manifest(o.prefix)) {
      inputs.push_back(manifest->path);
      if (manifest->comm_groups) inputs.push_back(manifest->comm_groups->first);
    }
    if (!o.chrome_trace.empty()) check_output_path(o.chrome_trace, "--chrome-trace", inputs);
    if (!o.trace.empty()) check_output_path(o.trace, "--trace", inputs);
    check_distinct_outputs({{"--trace", o.trace, false}, {"--chrome-trace", o.chrome_trace, false}});
    const int ranks = static_cast<int>(w.ranks.size());
    const ClusterSpec cluster = cluster_of(o, ranks);
    if (const std::string faults = w.tolerated().describe(); !faults.empty())
      std::cerr << "trainsim replay: " << o.prefix << ": tolerated " << faults << "\n";
    wl::ReplayOptions options;
    options.timeline = !o.chrome_trace.empty() || !o.trace.empty();
    options.max_events = k_max_trace_events;
    const RooflineComputeModel roofline(datasheet_roofline(cluster.gpu, Precision::bf16));
    if (o.compute_from_ops) options.compute = &roofline;
    const wl::ReplayResult r = wl::replay_workload(w, cluster, options);
    for (const wl::RankReplay& rr : r.ranks) {  // before any output; each >= 0 by construction (replay_simulation.cpp)
      checked_output("compute_s", rr.compute_s);
      checked_output("exposed_comm_s", rr.exposed_comm_s);
      checked_output("idle_s", rr.idle_s);
    }
    if (!o.trace.empty()) write_hdf5_trace(o.trace, trace_contents(o, r, cluster, ranks, roofline));
    if (!o.chrome_trace.empty())
      write_chrome_trace(o.chrome_trace, timeline_events(r), cluster.gpus_per_node, trace_metadata(o, cluster));
    if (options.timeline && r.events_dropped > 0)
      std::cerr << "trainsim replay: the traces hold the first " << r.events.size() << " nodes to end, "
                << r.events_dropped << " more left out\n";

    std::map<std::string, std::uint64_t> kinds;  // nodes per kind, all ranks
    for (const wl::RankTrace& t : w.ranks)
      for (const wl::ChakraNode& n : t.nodes) {
        const char* k = n.kind == wl::NodeKind::compute      ? "compute"
                        : n.kind == wl::NodeKind::collective ? "collective"
                        : n.kind == wl::NodeKind::send       ? "send"
                        : n.kind == wl::NodeKind::recv       ? "recv"
                                                             : "skipped";
        ++kinds[k];
      }
    std::map<std::string, KindTotal> totals;
    for (const wl::CommRecord& rec : r.comms) {
      KindTotal& k = totals[rec.kind];
      ++k.count;
      k.bytes += rec.bytes;
      k.time_s += rec.time_s;
      k.bus_bytes += rec.busbw_GBps * 1e9 * rec.time_s;
    }
    wl::RankReplay mean;
    std::map<std::string, double> mean_comm;
    for (const wl::RankReplay& rr : r.ranks) {
      mean.compute_s += rr.compute_s / ranks;
      mean.exposed_comm_s += rr.exposed_comm_s / ranks;
      mean.idle_s += rr.idle_s / ranks;
      for (const auto& [kind, s] : rr.comm_s) mean_comm[kind] += s / ranks;
    }
    const wl::TraceFaults faults = w.tolerated();
    if (o.json) {
      nlohmann::ordered_json j;
      j["prefix"] = o.prefix;
      j["ranks"] = ranks;
      j["cluster"] = cluster.preset;
      j["cluster_gpus"] = cluster.total_gpus();
      j["replay_time_s"] = r.replay_time_s;
      for (const auto& [k, n] : kinds) j["nodes"][k] = n;
      j["tolerated"] = {{"missing_deps", faults.missing_deps},
                        {"cpu_collectives", faults.cpu_collectives},
                        {"cpu_ops", faults.cpu_ops},
                        {"zero_durations", faults.zero_durations},
                        {"other_nodes", faults.other_nodes}};
      j["per_gpu_s"] = {{"compute", mean.compute_s}, {"exposed_comm", mean.exposed_comm_s}, {"idle", mean.idle_s}};
      j["comm_in_flight_per_gpu_s"] = nlohmann::ordered_json::object();
      for (const auto& [kind, s] : mean_comm) j["comm_in_flight_per_gpu_s"][kind] = s;
      j["exposed_comm_fraction"] = r.replay_time_s > 0 ? mean.exposed_comm_s / r.replay_time_s : 0;
      j["comm_totals"] = nlohmann::ordered_json::object();
      for (const auto& [kind, k] : totals)
        j["comm_totals"][kind] = {{"count", k.count},
                                  {"bytes", static_cast<std::uint64_t>(k.bytes)},
                                  {"time_s", k.time_s},
                                  {"busbw_GBps", k.time_s > 0 ? k.bus_bytes / k.time_s / 1e9 : 0}};
      j["comms"] = nlohmann::ordered_json::array();
      for (size_t i = 0; i < r.comms.size() && i < k_max_listed_comms; ++i) {
        const wl::CommRecord& rec = r.comms[i];
        j["comms"].push_back({{"kind", rec.kind},
                              {"bytes", static_cast<std::uint64_t>(rec.bytes)},
                              {"ranks", rec.ranks},
                              {"start_s", rec.start_s},
                              {"time_s", rec.time_s},
                              {"busbw_GBps", rec.busbw_GBps}});
      }
      j["per_rank"] = nlohmann::ordered_json::array();
      for (const wl::RankReplay& rr : r.ranks)
        j["per_rank"].push_back({{"compute_s", rr.compute_s},
                                 {"exposed_comm_s", rr.exposed_comm_s},
                                 {"idle_s", rr.idle_s},
                                 {"finish_s", rr.finish_s}});
      out << json_output(j);
      return 0;
    }
    out << "trainsim replay: " << o.prefix << ", " << ranks << " rank" << (ranks > 1 ? "s" : "") << " on the "
        << cluster.preset << " cluster (" << cluster.nodes << " node" << (cluster.nodes > 1 ? "s" : "") << ", "
        << cluster.total_gpus() << " GPUs), simulated on SimGrid\n\n";
    out << "replay time           " << formatted("%.3f", r.replay_time_s * 1e6) << " us\n";
    out << "nodes                 ";
    bool first = true;
    for (const auto& [k, n] : kinds) {
      out << (first ? "" : ", ") << k << " " << n;
      first = false;
    }
    out << "\nexposed communication "
        << formatted("%.1f", r.replay_time_s > 0 ? 100 * mean.exposed_comm_s / r.replay_time_s : 0) << " % of the replay\n";
    if (!totals.empty()) {
      out << "\ncommunication     count           bytes    time (us)  busbw (GB/s)\n";
      for (const auto& [kind, k] : totals) {
        char line[160];
        std::snprintf(line, sizeof line, "%-15s %7llu %15.0f %12.3f %13.2f\n", kind.c_str(),
                      static_cast<unsigned long long>(k.count), k.bytes, k.time_s * 1e6,
                      k.time_s > 0 ? k.bus_bytes / k.time_s / 1e9 : 0.0);
        out << line;
      }
    }
    out << "\nper GPU, us        compute exposed_comm         idle";
    for (const auto& [kind, s] : mean_comm)
      out << " " << std::string(kind.size() < 12 ? 12 - kind.size() : 0, ' ') << kind;
    out << "\n             " << formatted("%12.3f", mean.compute_s * 1e6) << " " << formatted("%12.3f", mean.exposed_comm_s * 1e6)
        << " " << formatted("%12.3f", mean.idle_s * 1e6);
    for (const auto& [kind, s] : mean_comm) out << " " << formatted("%12.3f", s * 1e6);
    out << "\n(compute + exposed_comm + idle = the replay time; each communication kind's time in flight, "
           "overlapped or not)\n";
    return 0;
  };
  return c;
}

}  // namespace trainsim::cli
