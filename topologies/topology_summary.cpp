#include "topologies/topology_summary.hpp"

#include <algorithm>
#include <limits>

#include "topologies/fabric_layout.hpp"

namespace trainsim {

TopologySummary summarize_topology(const ClusterSpec& c, const ClusterGraph& g) {
  TopologySummary s;
  s.nodes = c.nodes;
  for (const auto v : boost::make_iterator_range(boost::vertices(g))) {
    switch (g[v].kind) {
      case DeviceKind::gpu:
        ++s.gpus;
        break;
      case DeviceKind::nvswitch:
        ++s.nvswitches;
        break;
      case DeviceKind::nic:
        ++s.nics;
        break;
      case DeviceKind::leaf:
        ++s.leaves;
        break;
      case DeviceKind::spine:
        ++s.spines;
        break;
      case DeviceKind::core:
        ++s.cores;
        break;
    }
  }
  for (const auto e : boost::make_iterator_range(boost::edges(g))) {
    ++s.links;
    const LinkKind k = g[e].kind;
    if (k == LinkKind::nic_leaf || k == LinkKind::leaf_spine || k == LinkKind::spine_core) ++s.network_links;
  }
  if (c.fabric == Fabric::ideal) {
    s.bisection_Bps = std::numeric_limits<double>::infinity();
    return s;
  }
  if (c.domains() == 1) {  // one node, or one NVLink domain (an NVL72 rack): NVLink only
    s.bisection_Bps = static_cast<double>(c.domain_gpus() / 2) * c.nvlink_bandwidth_Bps;  // whole GPUs per half
    return s;
  }
  // Cut the nodes into two contiguous halves: on these symmetric trees that is a worst cut.
  const FabricLayout l = fabric_layout(c);
  double cut = static_cast<double>(c.nodes / 2) * l.nics_per_node * c.nic_bandwidth_Bps;  // whole nodes per half
  const bool leaf_layer_cut = c.fabric == Fabric::rail_optimized ? l.leaves_per_group > 1 : l.leaves > 1;
  if (leaf_layer_cut) cut = std::min(cut, l.leaves / 2.0 * l.leaf_uplink_Bps);
  if (c.fabric == Fabric::fat_tree && l.groups > 1) cut = std::min(cut, l.groups / 2.0 * l.group_uplink_Bps);
  s.bisection_Bps = cut;
  return s;
}

}  // namespace trainsim
