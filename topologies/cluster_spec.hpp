#pragma once
// A cluster of identical GPU nodes and the fabric between them, as a value type.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topologies/gpu_spec.hpp"

namespace trainsim {

/// single-switch: every NIC on one switch. fat-tree: leaf/spine(/core) with an
/// oversubscription ratio. rail-optimized: NIC i of every node on rail i's leaves.
/// ideal: infinite bandwidth and zero latency, for checking models.
enum class Fabric { single_switch, fat_tree, rail_optimized, ideal };

struct ClusterSpec {
  std::string preset = "custom";
  GpuSpec gpu;
  int nodes = 1;
  int gpus_per_node = 8;
  Fabric fabric = Fabric::fat_tree;
  double nvlink_bandwidth_Bps = 0;  ///< per GPU, per direction
  double nvlink_latency_s = 0;
  int nics_per_node = 8;
  double nic_bandwidth_Bps = 0;        ///< per NIC, per direction
  double nic_latency_s = 0;            ///< NIC to first switch
  double switch_latency_s = 0;         ///< per switch hop
  double oversubscription = 1.0;       ///< fat-tree leaf down:up bandwidth ratio (>= 1)
  int fat_tree_levels = 2;             ///< 2 (leaf/spine) or 3 (leaf/spine/core)
  double host_link_bandwidth_Bps = 0;  ///< GPU <-> host (PCIe), for CPU offload
  /// Kernel timings: "auto" (kernels/calibration/<gpu>.csv if shipped), "none" (datasheet
  /// roofline), or the path of a calibration table.
  std::string calibration = "auto";

  int total_gpus() const { return nodes * gpus_per_node; }
};

/// The cluster preset of that name (`dgx-a100`, `dgx-h100`, `hgx-h200`, `dgx-b200`) with one
/// node.
std::optional<ClusterSpec> cluster_preset(std::string_view name);
std::vector<std::string> cluster_preset_names();

}  // namespace trainsim
