#pragma once
// What `trainsim topology` prints: device and link counts and the bisection bandwidth.

#include "topologies/cluster_graph.hpp"
#include "topologies/cluster_spec.hpp"

namespace trainsim {

struct TopologySummary {
  int nodes = 0;
  int gpus = 0;
  int nvswitches = 0;  ///< one logical NVSwitch per NVLink domain (cluster_graph.hpp)
  int nics = 0;
  int leaves = 0;
  int spines = 0;
  int cores = 0;
  int links = 0;          ///< all cables, GPU-NVSwitch and GPU-NIC included
  int network_links = 0;  ///< NIC-leaf, leaf-spine and spine-core cables
  /// Bandwidth across the worst cut of the nodes into two equal halves, per direction, at
  /// line rate, in bytes/s: the nodes' NIC capacity or the switch layers above, whichever is
  /// less. A single node or NVLink domain reports its NVSwitch bisection (half the GPUs' NVLink). Infinite for
  /// the ideal fabric.
  double bisection_Bps = 0;
};

TopologySummary summarize_topology(const ClusterSpec& cluster, const ClusterGraph& graph);

}  // namespace trainsim
