#include "topologies/fabric_layout.hpp"

#include <algorithm>
#include <cmath>

namespace trainsim {

namespace {

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

// Port counts of the NVIDIA Quantum switches the DGX reference architectures use: QM8700
// (HDR, 40 x 200 Gb/s) for DGX A100 SuperPOD, QM9700 (NDR, 64 x 400 Gb/s) for DGX H100
// SuperPOD. A leaf uses half its ports down and half up (full fat-tree), so one rail leaf
// serves 20 (A100) or 32 (H100) nodes: the SuperPOD "scalable unit".
int radix_for(double nic_bandwidth_Bps) {
  return nic_bandwidth_Bps <= 25e9 ? 40 : 64;
}

}  // namespace

int FabricLayout::leaf_of_nic(int node, int nic) const {
  switch (fabric) {
    case Fabric::single_switch:
    case Fabric::ideal:
      return 0;
    case Fabric::rail_optimized:
      // Rail r = NIC r of every node; its leaves each serve nics_per_leaf consecutive nodes.
      return nic * leaves_per_group + node / nics_per_leaf;
    case Fabric::fat_tree:
      break;
  }
  return (node * nics_per_node + nic) / nics_per_leaf;
}

FabricLayout fabric_layout(const ClusterSpec& c) {
  FabricLayout l;
  l.fabric = c.fabric;
  l.nodes = c.nodes;
  l.gpus_per_node = c.gpus_per_node;
  l.nics_per_node = std::max(1, c.nics_per_node);
  l.switch_radix = radix_for(c.nic_bandwidth_Bps);
  const int half = l.switch_radix / 2;
  const int nics = l.nodes * l.nics_per_node;
  const double oversub = std::max(1.0, c.oversubscription);
  l.nics_per_leaf = half;
  l.leaf_uplinks = std::max(1, static_cast<int>(std::ceil(half / oversub)));
  // Down capacity / oversubscription: the leaf's down:up bandwidth ratio (cluster_spec.hpp).
  l.leaf_uplink_Bps = half * c.nic_bandwidth_Bps / oversub;

  switch (c.fabric) {
    case Fabric::single_switch:
    case Fabric::ideal:
      // One non-blocking switch with every NIC (a director-class switch or an ideal crossbar).
      l.nics_per_leaf = nics;
      l.leaves = 1;
      l.leaf_uplinks = 0;
      l.leaf_uplink_Bps = 0;
      l.leaves_per_group = 1;
      return l;
    case Fabric::fat_tree:
      l.leaves = ceil_div(nics, half);
      if (c.fat_tree_levels >= 3) {
        // Pods of `half` leaves under their own spines; pods joined by a core layer
        // without further oversubscription.
        l.leaves_per_group = half;
        l.groups = ceil_div(l.leaves, half);
        l.spines = l.groups * l.leaf_uplinks;
        l.group_uplink_Bps = l.leaves_per_group * l.leaf_uplink_Bps;
        l.cores = ceil_div(l.spines * half, l.switch_radix);
      } else {
        l.leaves_per_group = l.leaves;
        l.spines = l.leaves > 1 ? l.leaf_uplinks : 0;
      }
      break;
    case Fabric::rail_optimized:
      // One network per rail (NIC index), as in the DGX SuperPOD reference architecture:
      // rail leaves per scalable unit, rail spines between units, and a core layer that
      // only traffic changing rails crosses (NCCL's PXN avoids it; see platform.hpp).
      l.groups = l.nics_per_node;
      l.leaves_per_group = ceil_div(l.nodes, half);
      l.leaves = l.groups * l.leaves_per_group;
      l.spines = l.leaves_per_group > 1 ? l.groups * l.leaf_uplinks : 0;
      l.group_uplink_Bps = l.leaves_per_group * l.leaf_uplink_Bps;
      l.cores = l.groups > 1 ? ceil_div(l.groups * l.leaves_per_group * l.leaf_uplinks, l.switch_radix) : 0;
      break;
  }
  if (l.leaves <= 1) {
    l.leaf_uplinks = 0;
    l.leaf_uplink_Bps = 0;
  }
  return l;
}

}  // namespace trainsim
