#pragma once
// The cluster as a Boost.Graph graph: GPUs, NVSwitches, NICs, leaf/spine/core switches and
// the links between them, for inspection (summary, Graphviz) and for checks on the fabric.
// Built from the same FabricLayout as the SimGrid platform.

#include <boost/graph/adjacency_list.hpp>
#include <iosfwd>
#include <string>

#include "topologies/cluster_spec.hpp"

namespace trainsim {

enum class DeviceKind { gpu, nvswitch, nic, leaf, spine, core };
enum class LinkKind { nvlink, pcie, nic_leaf, leaf_spine, spine_core };

struct Device {
  DeviceKind kind = DeviceKind::gpu;
  std::string name;
  int node = -1;   ///< node index for GPUs, NVSwitches and NICs; -1 for fabric switches
  int index = -1;  ///< GPU or NIC index within its node; switch index within its layer
};

struct Cable {
  LinkKind kind = LinkKind::nvlink;
  double bandwidth_Bps = 0;  ///< per direction, line rate
  double latency_s = 0;
};

using ClusterGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, Device, Cable>;

/// The graph of `cluster`. A DGX node's NVSwitches (4 on H100, 6 on A100) act as one
/// non-blocking crossbar and are one vertex; so do the switch trays of an NVLink domain that
/// spans nodes (GB200 NVL72: one vertex per rack, "d<i>.nvswitch"). Each GPU reaches its NIC
/// through PCIe.
ClusterGraph build_cluster_graph(const ClusterSpec& cluster);

/// Writes `graph` in Graphviz dot format (vertices labelled by name, edges by bandwidth).
void write_cluster_dot(std::ostream& out, const ClusterGraph& graph);

}  // namespace trainsim
