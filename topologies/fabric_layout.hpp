#pragma once
// Where every NIC of a cluster plugs in: leaf switches, spines, pods or rails, and the
// capacity of each switch layer. The cluster graph (cluster_graph.hpp) and the SimGrid
// platform (sim/engine/platform.hpp) are both built from this one layout, so they agree.

#include "topologies/cluster_spec.hpp"

namespace trainsim {

/// The switch layers of a fabric. Bandwidths in bytes/s per direction, before protocol
/// efficiency (protocol_efficiency.hpp).
struct FabricLayout {
  Fabric fabric = Fabric::fat_tree;
  int nodes = 1;
  int gpus_per_node = 8;
  int nics_per_node = 8;
  int switch_radix = 64;       ///< ports per IB switch
  int nics_per_leaf = 32;      ///< down ports used on one leaf (rail-optimized: nodes per rail leaf)
  int leaves = 1;              ///< leaf switches in total
  int leaf_uplinks = 0;        ///< uplink cables per leaf (0 when nothing is above the leaves)
  double leaf_uplink_Bps = 0;  ///< aggregate uplink capacity of one leaf, per direction
  int groups = 1;              ///< pods (3-level fat-tree) or rails (rail-optimized); 1 otherwise
  int leaves_per_group = 1;
  double group_uplink_Bps = 0;  ///< aggregate capacity from one pod/rail to the core, per direction
  int spines = 0;               ///< spine switches in total
  int cores = 0;                ///< core switches (3-level fat-tree; rail-optimized cross-rail layer)

  /// The NIC a GPU of a node sends through: GPUs share NICs evenly (DGX: NIC i for GPU i).
  int nic_of_gpu(int local_gpu) const { return local_gpu * nics_per_node / gpus_per_node; }
  /// The leaf switch NIC `nic` of `node` is cabled to.
  int leaf_of_nic(int node, int nic) const;
  /// The pod or rail a leaf belongs to.
  int group_of_leaf(int leaf) const { return leaf / leaves_per_group; }
};

/// The layout of `cluster`'s fabric. Leaf switches have `switch_radix` ports (NDR
/// QM9700: 64, HDR QM8700: 40) of which half face down; the oversubscription ratio
/// divides their uplink capacity.
FabricLayout fabric_layout(const ClusterSpec& cluster);

}  // namespace trainsim
