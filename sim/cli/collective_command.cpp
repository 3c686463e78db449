// `trainsim collective --op OP --gpus N [--cluster PRESET | SCENARIO] [--algo A]
//  [-b MIN -e MAX -f FACTOR] [--json]`: an nccl-tests-style sweep of one collective,
// simulated on the cluster's SimGrid platform (one simulation, sizes one after another).

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <boost/program_options/variables_map.hpp>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <iostream>
#include <optional>
#include <ostream>
#include <simgrid/s4u/Actor.hpp>
#include <sstream>

#include "sim/cli/command_line.hpp"
#include "sim/cli/collective_caveat.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/full_platform_limit.hpp"
#include "sim/cli/json_output.hpp"
#include "sim/core/error.hpp"
#include "sim/core/nearest_name.hpp"
#include "sim/core/progress_line.hpp"
#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/collective.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/scenario/fabric_calibration_field.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/scenario/scenario_rules.hpp"
#include "sim/scenario/value_parsers.hpp"
#include "topologies/cluster_spec.hpp"

namespace trainsim::cli {

namespace {

namespace po = boost::program_options;
namespace eng = trainsim::engine;

constexpr const char* k_command = "trainsim collective";

// The largest collective simulated: every GPU is an actor on a platform of the whole cluster
// (full_platform_limit.hpp says what 2^17 costs and why 2^20 did not fit 4 GB).
constexpr int k_max_gpus = k_max_full_platform_gpus;

// The largest size: 1 TiB, beyond any GPU's memory (H200: 141 GB), so beyond any buffer
// nccl-tests could allocate; it keeps byte counts exact in doubles and in uint64 JSON.
constexpr double k_max_bytes = 1099511627776.0;

// Rows of one table: nccl-tests' -f 2 from 1 B to 1 TiB is 41 rows; 1,000 allows fine steps
// (-f 1.01 over three decades) and bounds the table's time (a row of 16,384 GPUs takes ~1 s).
constexpr std::size_t k_max_rows = 1000;

struct Options {
  std::string op = "allreduce";
  int gpus = 0;
  std::string gpus_text;  // as given: boost's own int parse said "the argument ('1e9') ... is invalid"
  std::string cluster;
  std::string fabric;
  std::string fabric_calibration;
  std::string scenario;
  std::vector<std::string> overrides;
  std::string algo = "auto";
  std::string min_bytes = "1M";
  std::string max_bytes = "1G";
  double factor = 2;
  std::string factor_text = "2";  // as given, read in parse (1.0000001 was named as '1')
  bool json = false;
  bool help = false;
  bool gpus_given = false;
};

po::options_description visible_options(Options& o) {
  po::options_description d("Options", 120);
  d.add_options()("help,h", "show this help")("op", po::value(&o.op)->default_value(o.op),
                                              "allreduce|allgather|reducescatter|alltoall|broadcast|sendrecv")(
      "gpus,g", po::value(&o.gpus_text),
      "GPUs taking part (the first N of the cluster); default: an NVLink domain (a node, or an NVL72 rack), "
      "or all of SCENARIO")(
      "cluster", po::value(&o.cluster),
      ("cluster preset (" + cluster_preset_list() + ") instead of a SCENARIO").c_str())(
      "fabric", po::value(&o.fabric), "with --cluster: single-switch|fat-tree|rail-optimized|ideal")(
      "fabric-calibration", po::value(&o.fabric_calibration)->value_name("FILE"),
      "collectives inside an NVLink domain and across domains as fitted to your nccl-tests logs (trainsim calibrate "
      "--from-nccl-tests)")(
      "algo", po::value(&o.algo)->default_value(o.algo), "auto|ring|tree|hierarchical|pairwise|direct|nvls|nvls-tree|collnet")(
      "minbytes,b", po::value(&o.min_bytes)->default_value(o.min_bytes),
      "smallest size (bytes; K, M, G = 2^10, 2^20, 2^30)")(
      "maxbytes,e", po::value(&o.max_bytes)->default_value(o.max_bytes), "largest size")(
      "stepfactor,f", po::value(&o.factor_text)->default_value(o.factor_text), "size multiplier between rows")(
      "json", "rows as JSON: [{bytes, time_s, algbw_GBps, busbw_GBps, algo, proto, channels (across NVL72 racks)}]")(
      "set", po::value(&o.overrides)->composing(), "override a SCENARIO key: --set section.key=value");
  return d;
}

Options parse(const std::vector<std::string>& args, std::string& usage) {
  Options o;
  po::options_description visible = visible_options(o);
  std::ostringstream u;
  u << "usage: trainsim collective --op OP [--gpus N] [--cluster PRESET | SCENARIO] [--fabric-calibration FILE] "
       "[--algo A] [-b MIN -e MAX -f F] [--json]\n\nnccl-tests-style table of a simulated collective\n\n"
    << visible;
  usage = u.str();
  po::options_description all;
  all.add(visible).add_options()("scenario", po::value(&o.scenario));
  const po::variables_map vm = parse_command_line(args, all, k_command, "scenario");
  o.help = vm.count("help") > 0;
  o.json = vm.count("json") > 0;
  o.gpus_given = vm.count("gpus") > 0;
  if (o.gpus_given) {
    const std::optional<long long> v = parse::integer(o.gpus_text);
    if (!v || *v < 1) throw InputError(k_command, "--gpus", o.gpus_text, "must be >= 1 (a whole number of GPUs)");
    o.gpus = static_cast<int>(std::min<long long>(*v, k_max_gpus + 1LL));  // past the limit: refused by cluster_of
  }
  const std::optional<double> factor = parse::number(o.factor_text);
  if (!factor) throw InputError(k_command, "--stepfactor", o.factor_text, "must be a number > 1");
  o.factor = *factor;
  return o;
}

// nccl-tests' size syntax: a number with an optional K, M, G or T suffix (powers of 1024).
double parse_size(const std::string& key, const std::string& text) {
  const std::string rule = "expected a byte count such as 8, 64K, 1M or 1G (K = 1024)";
  if (text.empty()) throw InputError(k_command, key, text, rule);
  double scale = 1;
  std::string digits = text;
  const char last = text.back();
  const std::string suffixes = "KMGT";
  if (const auto pos = suffixes.find(static_cast<char>(std::toupper(static_cast<unsigned char>(last))));
      pos != std::string::npos) {
    for (size_t k = 0; k <= pos; ++k) scale *= 1024;
    digits.pop_back();
  }
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(digits, &used);
  } catch (const std::exception&) {
    throw InputError(k_command, key, text, rule);
  }
  if (used != digits.size() || !(v >= 0)) throw InputError(k_command, key, text, rule);
  const double bytes = std::floor(v * scale);
  if (!(bytes <= k_max_bytes))
    throw InputError(k_command, key, text, "at most 1T (1 TiB): larger than any GPU's memory, so than any buffer");
  return bytes;
}

Fabric parse_fabric(const std::string& text) {
  const std::vector<std::pair<std::string, Fabric>> names{{"single-switch", Fabric::single_switch},
                                                          {"fat-tree", Fabric::fat_tree},
                                                          {"rail-optimized", Fabric::rail_optimized},
                                                          {"ideal", Fabric::ideal}};
  for (const auto& [name, f] : names)
    if (name == text) return f;
  throw InputError(k_command, "--fabric", text, "expected single-switch, fat-tree, rail-optimized or ideal");
}

template <class T>
T parse_named(const std::string& key, const std::string& text, std::optional<T> value,
              const std::vector<std::string>& names) {
  if (value) return *value;
  const auto near = nearest_name(text, names);
  std::string rule = "expected one of";
  for (const auto& n : names) rule += " " + n;
  if (near) rule += "; did you mean '" + *near + "'?";
  throw InputError(k_command, key, text, rule);
}

ClusterSpec cluster_of(const Options& o, bool gpus_given, int& gpus) {
  // --gpus 0 used to mean "the default" silently: a count given must be one.
  if (gpus_given && o.gpus < 1) throw InputError(k_command, "--gpus", std::to_string(o.gpus), "must be >= 1");
  if (gpus_given && o.gpus > k_max_gpus)
    throw InputError(k_command, "--gpus", o.gpus_text,
                     "at most " + std::to_string(k_max_gpus) +
                         " GPUs (2^17: every GPU is simulated, and memory grows with the GPUs)");
  if (!o.scenario.empty() && !o.cluster.empty())
    throw InputError(k_command, "--cluster", o.cluster, "give either a SCENARIO or --cluster, not both");
  ClusterSpec c;
  if (!o.scenario.empty()) {
    if (!o.fabric.empty())
      throw InputError(k_command, "--fabric", o.fabric, "set cluster.fabric with --set for a SCENARIO");
    check_overrides_given_once(o.overrides);
    c = load_scenario(o.scenario, o.overrides).cluster;
    if (!gpus_given && c.total_gpus() > k_max_gpus)
      throw InputError(k_command, "--gpus", "",
                       "the scenario's cluster has " + std::to_string(c.total_gpus()) + " GPUs, more than the " +
                           std::to_string(k_max_gpus) + " a collective simulates: give --gpus N");
    gpus = gpus_given ? o.gpus : c.total_gpus();
    if (gpus > c.total_gpus())
      throw InputError(k_command, "--gpus", std::to_string(gpus),
                       "the scenario's cluster has " + std::to_string(c.total_gpus()) + " GPUs");
  } else {
    const std::string name = o.cluster.empty() ? "dgx-h100" : o.cluster;
    c = parse_named<ClusterSpec>("--cluster", name, cluster_preset(name), cluster_preset_names());
    if (!o.overrides.empty()) throw InputError(k_command, "--set", o.overrides.front(), "--set needs a SCENARIO");
    gpus = gpus_given ? o.gpus : c.domain_gpus();
    // Whole NVLink domains (whole nodes on DGX/HGX; whole racks on NVL72).
    c.nodes = (gpus + c.domain_gpus() - 1) / c.domain_gpus() * c.nodes_per_domain();
    if (!o.fabric.empty()) c.fabric = parse_fabric(o.fabric);
  }
  if (gpus < 1) throw InputError(k_command, "--gpus", std::to_string(o.gpus), "must be >= 1");
  if (!o.fabric_calibration.empty())
    c.fabric_calibration = load_fabric_calibration(o.fabric_calibration, c.gpu.name, k_command, "--fabric-calibration");
  return c;
}

struct Row {
  double bytes = 0;
  double time_s = 0;
  std::string algo;
  std::string proto;  ///< NCCL's protocol: LL, LL128 or Simple
  int channels = 0;   ///< NCCL's channels (CTAs) across NVL72 racks; 0: not modelled
};

std::string protocol_name(eng::NcclProtocol p) {
  return p == eng::NcclProtocol::ll ? "LL" : p == eng::NcclProtocol::ll128 ? "LL128" : "Simple";
}

}  // namespace

Command collective_command() {
  Command c;
  c.name = "collective";
  c.summary = "nccl-tests-style table of a collective simulated on the cluster (SimGrid, with contention)";
  c.run = [](const std::vector<std::string>& args, std::ostream& out) {
    std::string usage;
    const Options o = parse(args, usage);
    if (o.help) {
      out << usage;
      return 0;
    }
    const auto op = parse_named<eng::CollectiveOp>("--op", o.op, eng::parse_op(o.op), eng::op_names());
    const auto algo = parse_named<eng::CollectiveAlgo>("--algo", o.algo, eng::parse_algo(o.algo), eng::algo_names());
    const double min_bytes = parse_size("--minbytes", o.min_bytes);
    const double max_bytes = parse_size("--maxbytes", o.max_bytes);
    if (max_bytes < min_bytes)
      throw InputError(k_command, "--maxbytes", o.max_bytes, "must be >= --minbytes (" + o.min_bytes + ")");
    if (!(o.factor > 1) && max_bytes > min_bytes)
      throw InputError(k_command, "--stepfactor", o.factor_text, "must be > 1");
    // 0 times the factor is 0: the sizes would never reach --maxbytes.
    if (min_bytes == 0 && max_bytes > 0)
      throw InputError(k_command, "--minbytes", o.min_bytes,
                       "must be >= 1 when --maxbytes is larger: a size of 0 never grows by --stepfactor");
    std::vector<double> sizes;
    for (double bytes = min_bytes;; bytes = std::floor(bytes * o.factor)) {
      sizes.push_back(bytes);
      if (sizes.size() > k_max_rows)
        throw InputError(k_command, "--stepfactor", o.factor_text,
                         "gives more than 1000 sizes from --minbytes to --maxbytes: take a larger factor");
      if (bytes >= max_bytes || !(o.factor > 1)) break;
      if (std::floor(bytes * o.factor) > max_bytes) break;
    }
    int gpus = 0;
    const ClusterSpec cluster = cluster_of(o, o.gpus_given, gpus);
    if (op == eng::CollectiveOp::all_to_all && gpus > 1024)
      throw InputError(k_command, "--gpus", std::to_string(gpus),
                       "alltoall is simulated pair by pair (n^2 transfers): at most 1024 GPUs");

    // Planned on the cluster without SimGrid; the platform then builds only the endpoints the
    // rows keep (plan_runner.hpp: prepare_lone_plan), so a large cluster builds a part.
    const eng::Platform planning = eng::Platform::without_simgrid(cluster);
    std::vector<Row> rows;
    eng::CollectiveCall call;
    call.op = op;
    call.algo = algo;
    for (int g = 0; g < gpus; ++g) call.gpus.push_back(g);
    // Each row's plan is built twice (to find its endpoints, then when it runs), so that one
    // plan is in memory at a time; the legs it leaves out are found once. A single row keeps
    // the plan it was planned with (the same transfers: the plan reads only the cluster).
    std::vector<bool> endpoints;
    std::vector<std::vector<std::vector<bool>>> left_out;  // per row
    std::optional<eng::CommPlan> single_plan;
    ProgressLine planned(terminal_stderr(), "collective (planning)", "sizes", static_cast<int>(sizes.size()));
    for (const double bytes : sizes) {
      call.bytes = bytes;
      eng::ChosenPlan chosen = eng::plan_chosen_collective(call, planning);
      rows.push_back({bytes, 0, eng::algo_name(chosen.algo), protocol_name(chosen.protocol), chosen.channels});
      eng::PreparedPlan prepared = eng::prepare_lone_plan(planning, std::move(chosen.plan), &endpoints);
      left_out.push_back(std::move(prepared.left_out));
      if (sizes.size() == 1) single_plan = std::move(prepared.plan);
      planned.item_done();
    }
    planned.finish();
    // Created once the plans are made: until then the heap takes huge pages
    // (sim/core/simulation_heap.hpp).
    eng::Simulation sim;
    const eng::Platform platform(cluster, std::move(endpoints));
    // One driver runs the sizes one after another, as nccl-tests does.
    ProgressLine progress(terminal_stderr(), "collective", "sizes", static_cast<int>(rows.size()));
    simgrid::s4u::Actor::create("sweep", platform.host(0), [&platform, &call, &rows, &left_out, &progress,
                                                            &single_plan]() {
      for (size_t r = 0; r < rows.size(); ++r) {
        Row& row = rows[r];
        call.bytes = row.bytes;
        // One row at a time, nothing else on the platform.
        eng::CommPlan plan = single_plan ? std::move(*single_plan) : eng::plan_collective(call, platform);
        const eng::CommActivity a = eng::start_prepared_plan(
            platform, std::make_shared<const eng::PreparedPlan>(eng::PreparedPlan{std::move(plan), std::move(left_out[r])}),
            "row", eng::k_lone_plan_run);
        a.wait();
        row.time_s = a.duration_s();
        progress.item_done();
      }
    });
    sim.run();
    progress.finish();

    const double factor = eng::bus_bandwidth_factor(op, gpus);
    const std::optional<std::string> caveat = collective_caveat(cluster, gpus);
    if (caveat) std::cerr << "trainsim collective: caveat: " << *caveat << "\n";
    if (o.json) {
      nlohmann::ordered_json j = nlohmann::ordered_json::array();
      for (const Row& r : rows) {
        const double algbw = r.time_s > 0 ? r.bytes / r.time_s / 1e9 : 0;
        nlohmann::ordered_json row;
        row["bytes"] = static_cast<std::uint64_t>(r.bytes);
        row["time_s"] = r.time_s;
        row["algbw_GBps"] = algbw;
        row["busbw_GBps"] = algbw * factor;
        row["algo"] = r.algo;
        row["proto"] = r.proto;
        if (r.channels > 0) row["channels"] = r.channels;
        row["caveats"] = caveat.value_or("");
        j.push_back(row);
      }
      out << json_output(j);
      return 0;
    }
    const int spanned = (gpus + cluster.gpus_per_node - 1) / cluster.gpus_per_node;
    out << "# trainsim collective: " << eng::op_name(op) << " on " << gpus << " GPUs (" << spanned << " node"
        << (spanned > 1 ? "s" : "") << ") of the " << cluster.preset << " cluster (" << cluster.nodes << " node"
        << (cluster.nodes > 1 ? "s" : "") << "), simulated on SimGrid\n#\n";
    if (caveat) out << "# caveat: " << *caveat << "\n#\n";
    // nccl-tests prints the count its call takes (paramcount): each rank's part for all-gather,
    // reduce-scatter and all-to-all, whose size column is the whole buffer (src/all_gather.cu,
    // reduce_scatter.cu, alltoall.cu *GetCollByteCount: paramcount = count / nranks; the H200
    // all-gather log of tests/data/nccl-tests/ prints 536870912 for 16 GiB on 8 ranks). It
    // printed size / 4 for every op.
    const double count_ranks = op == eng::CollectiveOp::all_gather || op == eng::CollectiveOp::reduce_scatter ||
                                       op == eng::CollectiveOp::all_to_all
                                   ? gpus
                                   : 1;
    out << "#        size         count    type         algo   proto  chan      time     algbw     busbw\n";
    out << "#         (B)    (elements)                                         (us)    (GB/s)    (GB/s)\n";
    for (const Row& r : rows) {
      const double algbw = r.time_s > 0 ? r.bytes / r.time_s / 1e9 : 0;
      char line[160];
      const std::string chan = r.channels > 0 ? std::to_string(r.channels) : "-";
      std::snprintf(line, sizeof line, "%14.0f %13.0f %7s %12s %7s %5s %9.2f %9.2f %9.2f\n", r.bytes,
                    std::floor(r.bytes / 4 / count_ranks), "float", r.algo.c_str(), r.proto.c_str(), chan.c_str(), r.time_s * 1e6,
                    algbw, algbw * factor);
      out << line;
    }
    return 0;
  };
  return c;
}

}  // namespace trainsim::cli
