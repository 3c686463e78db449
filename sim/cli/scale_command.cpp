// `trainsim scale SCENARIO --nodes 8,16,32 [--mode strong|weak] [--json]`: the scenario's
// step simulated at several cluster sizes, each in its own process, with speedup and
// efficiency against the smallest.
//   strong: the global batch stays the scenario's; grad_accum shrinks as dp grows.
//   weak:   each replica's work stays the scenario's; the global batch grows with dp.

#include <algorithm>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "sim/cli/command.hpp"
#include "sim/cli/json_output.hpp"
#include "sim/cli/scenario_compute_model.hpp"
#include "sim/cli/scenario_options.hpp"
#include "sim/core/error.hpp"
#include "sim/core/forked_call.hpp"
#include "sim/core/progress_line.hpp"
#include "sim/scenario/accuracy_caveats.hpp"
#include "sim/scenario/ini_reader.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/scenario/scenario_rules.hpp"
#include "sim/scenario/value_parsers.hpp"
#include "sim/step/memory_fit.hpp"
#include "sim/step/step_simulation.hpp"

namespace trainsim::cli {

namespace {

struct Point {
  int nodes = 0;
  int gpus = 0;
  int dp = 0;
  int grad_accum = 0;
  double global_batch = 0;
  double step_time_s = 0;
  double tokens_per_s = 0;
  double mfu = 0;
  double bubble = 0;
  double exposed_comm = 0;
  // Whether the step fits the GPU's memory (sim/step/memory_fit.hpp) and how far to trust it
  // (sim/scenario/accuracy_caveats.hpp), as run says them: a size that does not fit, or that no
  // published run covers (more GPUs than the family's largest), was a plain row before.
  bool fits = true;
  double peak_memory_bytes = 0;
  double capacity_bytes = 0;
  double headroom_bytes = 0;
  std::string memory_warning;
  std::string validation_family;
  std::string caveats;
};

// Each count at most the cluster limit's GPUs (check_cluster_size's, k_max_cluster_endpoints)
// before any arithmetic: 2^31 nodes wrapped to a negative int (SIGFPE), 2^28 gave "dp -67108864".
std::vector<int> parse_nodes(const std::string& text, int gpus_per_node) {
  std::vector<int> nodes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto v = parse::integer(item);
    if (!v || *v < 1)
      throw InputError("trainsim scale", "--nodes", text, "expected a comma-separated list of node counts >= 1");
    if (*v > k_max_cluster_endpoints / gpus_per_node)
      throw InputError("trainsim scale", "--nodes", text,
                       item + " nodes of " + std::to_string(gpus_per_node) + " GPUs: trainsim simulates at most " +
                           std::to_string(k_max_cluster_endpoints) + " GPUs");
    nodes.push_back(static_cast<int>(*v));
  }
  if (nodes.empty()) throw InputError("trainsim scale", "--nodes", text, "expected at least one node count");
  return nodes;
}

// The overrides that put the scenario on `nodes` nodes.
std::vector<std::string> point_overrides(const Scenario& base, int nodes, bool strong, const std::string& nodes_text) {
  const ParallelSpec& p = base.parallel;
  const int gpus = nodes * base.cluster.gpus_per_node;
  const int model_parallel = p.tp * p.pp * p.cp;
  if (gpus % model_parallel != 0)
    throw InputError("trainsim scale", "--nodes", nodes_text,
                     std::to_string(nodes) + " nodes give " + std::to_string(gpus) +
                         " GPUs, not divisible by tp*pp*cp = " + std::to_string(model_parallel));
  const int dp = gpus / model_parallel;
  int grad_accum = base.training.grad_accum;
  if (strong) {
    const long long samples = static_cast<long long>(base.training.micro_batch) * base.training.grad_accum * p.dp;
    const long long per_step = static_cast<long long>(base.training.micro_batch) * dp;
    if (samples % per_step != 0)
      throw InputError("trainsim scale", "--nodes", nodes_text,
                       "strong scaling keeps the global batch of " + std::to_string(samples) + " samples, which " +
                           std::to_string(nodes) + " nodes (dp " + std::to_string(dp) + ", micro_batch " +
                           std::to_string(base.training.micro_batch) + ") cannot split evenly");
    grad_accum = static_cast<int>(samples / per_step);
  }
  return {"cluster.nodes=" + std::to_string(nodes), "parallel.dp=" + std::to_string(dp),
          "training.grad_accum=" + std::to_string(grad_accum)};
}

Point simulate_point(const std::string& path, const std::vector<std::string>& overrides, int nodes) {
  const std::string text = forked_call([&] {
    const Scenario s = load_scenario(path, overrides);
    const auto compute = scenario_compute_model(s);
    const StepResult r = simulate_step(s, *compute);
    nlohmann::json j;
    j["gpus"] = r.gpus;
    j["dp"] = s.parallel.dp;
    j["grad_accum"] = s.training.grad_accum;
    j["global_batch"] = r.global_batch_samples;
    j["step_time_s"] = r.step_time_s;
    j["tokens_per_s"] = r.tokens_per_s;
    j["mfu"] = r.mfu;
    j["bubble"] = r.bubble_fraction;
    j["exposed_comm"] = r.exposed_comm_fraction;
    const MemoryFit fit = memory_fit(s, r);
    j["fits"] = fit.fits;
    j["peak_memory_bytes"] = r.peak_memory_bytes;
    j["capacity_bytes"] = fit.capacity_bytes;
    j["headroom_bytes"] = fit.headroom_bytes;
    j["memory_warning"] = memory_fit_warning(s, r).value_or("");
    j["validation_family"] = validation_family(s).id;
    j["caveats"] = scenario_caveat(s).value_or("");
    return j.dump();
  });
  const auto j = nlohmann::json::parse(text);
  Point pt;
  pt.nodes = nodes;
  pt.gpus = j["gpus"];
  pt.dp = j["dp"];
  pt.grad_accum = j["grad_accum"];
  pt.global_batch = j["global_batch"];
  pt.step_time_s = j["step_time_s"];
  pt.tokens_per_s = j["tokens_per_s"];
  pt.mfu = j["mfu"];
  pt.bubble = j["bubble"];
  pt.exposed_comm = j["exposed_comm"];
  pt.fits = j["fits"];
  pt.peak_memory_bytes = j["peak_memory_bytes"];
  pt.capacity_bytes = j["capacity_bytes"];
  pt.headroom_bytes = j["headroom_bytes"];
  pt.memory_warning = j["memory_warning"];
  pt.validation_family = j["validation_family"];
  pt.caveats = j["caveats"];
  return pt;
}

// Speedup and efficiency against the first point: strong scaling compares step times,
// weak scaling throughput.
double speedup(const Point& p, const Point& base, bool strong) {
  return strong ? base.step_time_s / p.step_time_s : p.tokens_per_s / base.tokens_per_s;
}

// What the table says above its rows and stderr says in any format: each size that does not
// fit ("warning: N nodes: ...") and each distinct caveat with the sizes it is for.
std::vector<std::string> warnings(const std::vector<Point>& points) {
  std::vector<std::string> lines;
  for (const Point& p : points)
    if (!p.fits) lines.push_back("warning: " + std::to_string(p.nodes) + " nodes: " + p.memory_warning);
  std::vector<std::string> caveats;
  for (const Point& p : points)
    if (!p.caveats.empty() && std::find(caveats.begin(), caveats.end(), p.caveats) == caveats.end())
      caveats.push_back(p.caveats);
  for (const std::string& c : caveats) {
    std::string sizes;
    int n = 0;
    for (const Point& p : points)
      if (p.caveats == c) sizes += (n++ ? ", " : "") + std::to_string(p.nodes);
    lines.push_back(n == static_cast<int>(points.size()) ? "caveat: " + c
                                                         : "caveat (" + sizes + " nodes): " + c);
  }
  return lines;
}

std::string render(const std::vector<Point>& points, bool strong, bool json, const Scenario& base) {
  const Point& first = points.front();
  if (json) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const Point& p : points) {
      const double s = speedup(p, first, strong);
      nlohmann::ordered_json r;
      r["nodes"] = p.nodes;
      r["gpus"] = p.gpus;
      r["dp"] = p.dp;
      r["grad_accum"] = p.grad_accum;
      r["global_batch_samples"] = p.global_batch;
      r["step_time_s"] = p.step_time_s;
      r["tokens_per_s"] = p.tokens_per_s;
      r["speedup"] = s;
      r["efficiency"] = s / (static_cast<double>(p.gpus) / first.gpus);
      r["mfu"] = p.mfu;
      r["bubble_fraction"] = p.bubble;
      r["exposed_comm_fraction"] = p.exposed_comm;
      r["fits"] = p.fits;
      r["peak_memory_bytes"] = p.peak_memory_bytes;
      r["capacity_bytes"] = p.capacity_bytes;
      r["headroom_bytes"] = p.headroom_bytes;
      r["validation_family"] = p.validation_family;
      r["caveats"] = p.caveats;
      rows.push_back(r);
    }
    nlohmann::ordered_json j;
    j["mode"] = strong ? "strong" : "weak";
    j["points"] = rows;
    return json_output(j);
  }
  std::ostringstream out;
  out << "trainsim scale: " << base.model.name << " on " << base.cluster.gpu.name << ", tp " << base.parallel.tp
      << " pp " << base.parallel.pp << " cp " << base.parallel.cp << ", "
      << (strong ? "strong scaling (fixed global batch)" : "weak scaling (fixed work per replica)") << "\n\n";
  char line[256];
  for (const std::string& w : warnings(points)) out << w << "\n";
  if (!warnings(points).empty()) out << "\n";
  std::snprintf(line, sizeof line, "%6s %6s %5s %10s %12s %10s %14s %8s %10s %6s %5s\n", "nodes", "gpus", "dp",
                "grad_accum", "global_batch", "step_s", "tokens/s", "speedup", "efficiency", "mfu", "fits");
  out << line;
  for (const Point& p : points) {
    const double s = speedup(p, first, strong);
    std::snprintf(line, sizeof line, "%6d %6d %5d %10d %12.0f %10.4f %14.0f %8.2f %9.1f%% %5.1f%% %5s\n", p.nodes,
                  p.gpus, p.dp, p.grad_accum, p.global_batch, p.step_time_s, p.tokens_per_s, s,
                  100 * s / (static_cast<double>(p.gpus) / first.gpus), 100 * p.mfu, p.fits ? "yes" : "NO");
    out << line;
  }
  return out.str();
}

}  // namespace

Command scale_command() {
  Command c;
  c.name = "scale";
  c.summary = "strong or weak scaling: the step simulated at several node counts, speedup and efficiency";
  c.run = [summary = c.summary](const std::vector<std::string>& args, std::ostream& out) {
    namespace po = boost::program_options;
    po::options_description extra("Scaling");
    extra.add_options()("nodes", po::value<std::string>(), "node counts, comma-separated (e.g. 8,16,32,64)")(
        "mode", po::value<std::string>()->default_value("strong"), "strong (fixed global batch) or weak");
    const ScenarioOptions o = parse_scenario_options("scale", args, extra);
    if (o.help) {
      out << scenario_usage("scale", summary, extra);
      return 0;
    }
    if (!o.variables.count("nodes"))
      throw InputError("trainsim scale", "--nodes", "", "required: the node counts to simulate");
    const std::string mode = o.variables["mode"].as<std::string>();
    if (mode != "strong" && mode != "weak")
      throw InputError("trainsim scale", "--mode", mode, "expected strong or weak");
    const bool strong = mode == "strong";
    const std::string nodes_text = o.variables["nodes"].as<std::string>();
    const Scenario base = load_scenario(o.scenario_path, o.overrides);
    std::vector<Point> points;
    const std::vector<int> sizes = parse_nodes(nodes_text, base.cluster.gpus_per_node);
    ProgressLine progress(terminal_stderr(), "scale", "sizes", static_cast<int>(sizes.size()));
    for (const int nodes : sizes) {
      // A --set training.global_batch is the base's batch, which each size's grad_accum
      // carries (kept or rescaled): the size's own grad_accum replaces it.
      std::vector<std::string> overrides = o.overrides;
      std::erase_if(overrides, [](const std::string& text) { return parse_override(text).name == "training.global_batch"; });
      for (std::string& extra_override : point_overrides(base, nodes, strong, nodes_text))
        overrides.push_back(extra_override);
      points.push_back(simulate_point(o.scenario_path, overrides, nodes));
      progress.item_done();
    }
    progress.finish();
    for (const std::string& w : warnings(points)) std::cerr << "trainsim scale: " << w << "\n";
    out << render(points, strong, o.json, base);
    return 0;
  };
  return c;
}

}  // namespace trainsim::cli
