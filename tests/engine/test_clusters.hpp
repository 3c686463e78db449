#pragma once
// Small clusters for engine tests: round numbers, no calibrated efficiency (a GPU name
// and NIC speed without measurements, topologies/protocol_efficiency.cpp), so that the
// closed forms apply with the nominal bandwidths.

#include "topologies/cluster_spec.hpp"

namespace trainsim::engine::test {

inline constexpr double k_nic_Bps = 10e9;
inline constexpr double k_nvlink_Bps = 100e9;
inline constexpr double k_nic_latency_s = 2e-6;
inline constexpr double k_switch_latency_s = 0.5e-6;
inline constexpr double k_nvlink_latency_s = 1e-6;
inline constexpr double k_mib = 1024.0 * 1024.0;

/// `nodes` nodes of `gpus_per_node` GPUs and one NIC each; leaves of 20 NICs (the radix of
/// a switch for NICs <= 25 GB/s, topologies/fabric_layout.cpp).
inline ClusterSpec small_cluster(int nodes, int gpus_per_node, Fabric fabric) {
  ClusterSpec c;
  c.gpu.name = "test-gpu";
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  c.fabric = fabric;
  c.nvlink_bandwidth_Bps = k_nvlink_Bps;
  c.nvlink_latency_s = k_nvlink_latency_s;
  c.nics_per_node = 1;
  c.nic_bandwidth_Bps = k_nic_Bps;
  c.nic_latency_s = k_nic_latency_s;
  c.switch_latency_s = k_switch_latency_s;
  return c;
}

/// Preset `name` (topologies/presets/clusters/) with `nodes` nodes on `fabric`.
inline ClusterSpec preset_cluster(const char* name, int nodes, Fabric fabric) {
  ClusterSpec c = *cluster_preset(name);
  c.nodes = nodes;
  c.fabric = fabric;
  return c;
}

}  // namespace trainsim::engine::test
