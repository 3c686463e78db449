#include "topologies/cluster_graph.hpp"

#include <boost/graph/graphviz.hpp>
#include <ostream>
#include <sstream>
#include <vector>

#include "topologies/fabric_layout.hpp"

namespace trainsim {

namespace {

using Vertex = ClusterGraph::vertex_descriptor;

Vertex add_device(ClusterGraph& g, DeviceKind kind, std::string name, int node, int index) {
  return boost::add_vertex(Device{kind, std::move(name), node, index}, g);
}

void add_cable(ClusterGraph& g, Vertex a, Vertex b, LinkKind kind, double bandwidth_Bps, double latency_s) {
  boost::add_edge(a, b, Cable{kind, bandwidth_Bps, latency_s}, g);
}

}  // namespace

ClusterGraph build_cluster_graph(const ClusterSpec& c) {
  const FabricLayout l = fabric_layout(c);
  ClusterGraph g;
  std::vector<Vertex> leaves, spines, cores;
  for (int i = 0; i < l.leaves; ++i)
    leaves.push_back(add_device(g, DeviceKind::leaf, "leaf" + std::to_string(i), -1, i));
  for (int i = 0; i < l.spines; ++i)
    spines.push_back(add_device(g, DeviceKind::spine, "spine" + std::to_string(i), -1, i));
  for (int i = 0; i < l.cores; ++i) cores.push_back(add_device(g, DeviceKind::core, "core" + std::to_string(i), -1, i));

  const double uplink_Bps = l.leaf_uplinks > 0 ? l.leaf_uplink_Bps / l.leaf_uplinks : 0;
  Vertex nvswitch{};
  for (int n = 0; n < c.nodes; ++n) {
    const std::string node = "n" + std::to_string(n);
    // One NVSwitch vertex per NVLink domain: a node's, or an NVL72 rack's switch trays.
    const int per_domain = c.nodes_per_domain();
    if (n % per_domain == 0)
      nvswitch = add_device(g, DeviceKind::nvswitch,
                            per_domain == 1 ? node + ".nvswitch" : "d" + std::to_string(n / per_domain) + ".nvswitch",
                            n, per_domain == 1 ? 0 : n / per_domain);
    std::vector<Vertex> nics;
    for (int i = 0; i < l.nics_per_node; ++i) {
      nics.push_back(add_device(g, DeviceKind::nic, node + ".nic" + std::to_string(i), n, i));
      // Latencies as in the SimGrid platform (sim/engine/platform.hpp): NIC to NIC under one
      // leaf costs nic_latency_s + switch_latency_s.
      add_cable(g, nics.back(), leaves[l.leaf_of_nic(n, i)], LinkKind::nic_leaf, c.nic_bandwidth_Bps,
                (c.nic_latency_s + c.switch_latency_s) / 2);
    }
    for (int i = 0; i < c.gpus_per_node; ++i) {
      const Vertex gpu = add_device(g, DeviceKind::gpu, node + ".gpu" + std::to_string(i), n, i);
      if (c.domain_gpus() > 1)
        add_cable(g, gpu, nvswitch, LinkKind::nvlink, c.nvlink_bandwidth_Bps, c.nvlink_latency_s / 2);
      // A GPU's NIC sits behind a PCIe switch at the NIC's rate (DGX: one NIC per GPU).
      add_cable(g, gpu, nics[l.nic_of_gpu(i)], LinkKind::pcie, c.nic_bandwidth_Bps, 0);
    }
  }
  // Each leaf spreads its uplinks over the spines of its pod or rail; pod/rail spines
  // spread theirs over the cores.
  for (int leaf = 0; leaf < l.leaves && !spines.empty(); ++leaf) {
    // 2-level fat-tree: one spine layer for all leaves; pods and rails have their own.
    const int group = l.spines == l.leaf_uplinks ? 0 : l.group_of_leaf(leaf);
    for (int u = 0; u < l.leaf_uplinks; ++u)
      add_cable(g, leaves[leaf], spines[(group * l.leaf_uplinks + u) % spines.size()], LinkKind::leaf_spine, uplink_Bps,
                c.switch_latency_s);
  }
  if (!cores.empty()) {
    // Spines of a group (or, without spines, the leaves) carry the group's uplink capacity to the core.
    const std::vector<Vertex>& below = spines.empty() ? leaves : spines;
    const int ports = spines.empty() ? l.leaf_uplinks : l.switch_radix / 2;
    const double per_port_Bps = l.group_uplink_Bps * l.groups / (static_cast<double>(below.size()) * ports);
    int next = 0;
    for (const Vertex v : below)
      for (int p = 0; p < ports; ++p)
        add_cable(g, v, cores[next++ % cores.size()], LinkKind::spine_core, per_port_Bps, c.switch_latency_s);
  }
  return g;
}

void write_cluster_dot(std::ostream& out, const ClusterGraph& g) {
  boost::write_graphviz(
      out, g, [&g](std::ostream& o, Vertex v) { o << "[label=\"" << g[v].name << "\"]"; },
      [&g](std::ostream& o, ClusterGraph::edge_descriptor e) {
        std::ostringstream label;
        label << g[e].bandwidth_Bps / 1e9 << " GB/s";
        o << "[label=\"" << label.str() << "\"]";
      });
}

}  // namespace trainsim
