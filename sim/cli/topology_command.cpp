// `trainsim topology SCENARIO [--dot FILE] [--json]`: the cluster's devices, links and
// bisection bandwidth, the rank mapping's groups, and optionally the graph as Graphviz dot.

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "sim/cli/command.hpp"
#include "sim/cli/json_output.hpp"
#include "sim/cli/scenario_compute_model.hpp"
#include "sim/cli/scenario_options.hpp"
#include "sim/core/comment_line.hpp"
#include "sim/core/output_file.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "topologies/cluster_graph.hpp"
#include "topologies/fabric_layout.hpp"
#include "topologies/group_span.hpp"
#include "topologies/protocol_efficiency.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/topology_summary.hpp"

namespace trainsim::cli {

namespace {

const char* fabric_name(Fabric f) {
  switch (f) {
    case Fabric::single_switch:
      return "single-switch";
    case Fabric::fat_tree:
      return "fat-tree";
    case Fabric::rail_optimized:
      return "rail-optimized";
    case Fabric::ideal:
      return "ideal";
  }
  return "?";
}

std::string gbps(double Bps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", Bps / 1e9);
  return buf;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string fixed3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

struct AxisGroups {
  const char* name;
  GroupAxis axis;
  int size;
};

std::vector<AxisGroups> axes(const ParallelSpec& p) {
  std::vector<AxisGroups> v{{"tp", GroupAxis::tp, p.tp},
                            {"cp", GroupAxis::cp, p.cp},
                            {"pp", GroupAxis::pp, p.pp},
                            {"dp", GroupAxis::dp, p.dp},
                            {"ep", GroupAxis::ep, p.ep}};
  if (p.expert_folding()) v.push_back({"expert_tp", GroupAxis::etp, p.expert_tp_size()});
  return v;
}

// "1 node" or "1-2 nodes".
std::string count(int lo, int hi, const std::string& what) {
  return (lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi)) + " " + what +
         (hi == 1 ? "" : "s");
}

std::string span_lines(const RankMapping& m, const RankOrder& order) {
  std::ostringstream out;
  out << "group spans     nodes and NVLink domains one group's GPUs are on (order " << order.text() << ")\n";
  for (const GroupSpan& g : group_spans(m)) {
    char name[16];
    std::snprintf(name, sizeof name, "%-10s", g.name.c_str());
    out << "  " << name << " " << count(g.size, g.size, "rank") << " on " << count(g.min_nodes, g.max_nodes, "node")
        << ", " << count(g.min_domains, g.max_domains, "NVLink domain") << "\n";
  }
  return out.str();
}

std::string text_report(const Scenario& s, const TopologySummary& t, const RankMapping& m) {
  const ClusterSpec& c = s.cluster;
  const FabricLayout l = fabric_layout(c);
  const ProtocolEfficiency e = protocol_efficiency(c);
  std::ostringstream out;
  out << "# " << comment_line(s.source) << ": " << c.preset << ", " << fabric_name(c.fabric)
      << (c.fabric == Fabric::fat_tree ? " (" + std::to_string(c.fat_tree_levels) + " levels, oversubscription " +
                                             number(c.oversubscription) + ")"
                                       : "")
      << "\n";
  out << "GPUs            " << t.gpus << " (" << c.nodes << " nodes x " << c.gpus_per_node << " " << c.gpu.name
      << ", NVLink " << gbps(c.nvlink_bandwidth_Bps) << " GB/s per direction)\n";
  if (c.nodes_per_domain() == 1)
    out << "NVSwitches      " << t.nvswitches << " (one non-blocking crossbar per node)\n";
  else
    out << "NVSwitches      " << t.nvswitches << " (one non-blocking NVLink domain of " << c.domain_gpus()
        << " GPUs on " << c.nodes_per_domain() << " nodes each"
        << (c.domain_gpus() < c.physical_domain_gpus()
                ? ": the job's share of each " + std::to_string(c.physical_domain_gpus()) + "-GPU domain"
                : std::string())
        << ")\n";
  out << "NICs            " << t.nics << " (" << l.nics_per_node << " per node, " << gbps(c.nic_bandwidth_Bps)
      << " GB/s each)\n";
  out << "switches        " << t.leaves + t.spines + t.cores << ": " << t.leaves << " leaf, " << t.spines << " spine, "
      << t.cores << " core (" << l.switch_radix << " ports)\n";
  out << "links           " << t.links << " (" << t.network_links << " in the network)\n";
  out << "bisection       " << gbps(t.bisection_Bps) << " GB/s per direction, line rate\n";
  out << "efficiency      NVLink " << fixed3(e.nvlink) << ", network " << fixed3(e.network) << " of line rate\n"
      << "                NVLink: " << e.nvlink_source << "\n"
      << "                network: " << e.network_source << "\n";
  out << "rank groups    ";
  for (const AxisGroups& a : axes(s.parallel))
    out << " " << a.name << " " << m.groups(a.axis).size() << " x " << a.size << ";";
  out << "\n";
  out << span_lines(m, s.parallel.order);
  for (const std::string& w : m.warnings()) out << "warning: " << w << "\n";
  return out.str();
}

std::string json_report(const Scenario& s, const TopologySummary& t, const RankMapping& m) {
  nlohmann::json j;
  j["fabric"] = fabric_name(s.cluster.fabric);
  j["nodes"] = t.nodes;
  j["gpus"] = t.gpus;
  j["nvswitches"] = t.nvswitches;
  j["nvlink_domain_gpus"] = s.cluster.domain_gpus();
  j["nvlink_domain_gpus_built"] = s.cluster.physical_domain_gpus();
  j["nics"] = t.nics;
  j["leaf_switches"] = t.leaves;
  j["spine_switches"] = t.spines;
  j["core_switches"] = t.cores;
  j["links"] = t.links;
  j["network_links"] = t.network_links;
  j["bisection_GBps"] = t.bisection_Bps / 1e9;
  nlohmann::json groups;
  for (const AxisGroups& a : axes(s.parallel)) groups[a.name] = {{"groups", m.groups(a.axis).size()}, {"size", a.size}};
  j["rank_groups"] = groups;
  j["order"] = s.parallel.order.text();
  nlohmann::json spans;
  for (const GroupSpan& g : group_spans(m))
    spans[g.name] = {{"size", g.size},
                     {"nodes", g.max_nodes},
                     {"nvlink_domains", g.max_domains},
                     {"min_nodes", g.min_nodes},
                     {"min_nvlink_domains", g.min_domains}};
  j["group_spans"] = spans;
  j["warnings"] = m.warnings();
  return json_output(j);
}

}  // namespace

Command topology_command() {
  Command c;
  c.name = "topology";
  c.summary = "summarize the cluster graph (GPUs, switches, links, bisection); --dot exports it";
  c.run = [summary = c.summary](const std::vector<std::string>& args, std::ostream& out) {
    boost::program_options::options_description extra("Topology options");
    std::string dot_path;
    extra.add_options()("dot", boost::program_options::value(&dot_path), "write the cluster graph to FILE (Graphviz)");
    const ScenarioOptions o = parse_scenario_options("topology", args, extra);
    if (o.help) {
      out << scenario_usage("topology", summary, extra);
      return 0;
    }
    const Scenario s = load_scenario(o.scenario_path, o.overrides);
    // An empty name ("--dot $UNSET") is refused, not taken as no graph.
    if (o.variables.count("dot")) check_output_path(dot_path, "--dot", scenario_input_files(s));
    const ClusterGraph graph = build_cluster_graph(s.cluster);
    const TopologySummary t = summarize_topology(s.cluster, graph);
    const RankMapping mapping(s.parallel, s.cluster);
    const std::string report = o.json ? json_report(s, t, mapping) : text_report(s, t, mapping);
    if (!dot_path.empty()) {
      std::ostringstream dot;
      write_cluster_dot(dot, graph);
      write_file_atomically(dot_path, dot.str());
    }
    out << report;
    return 0;
  };
  return c;
}

}  // namespace trainsim::cli
