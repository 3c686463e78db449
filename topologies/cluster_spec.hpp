#pragma once
// A cluster of identical GPU nodes and the fabric between them, as a value type.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topologies/gpu_spec.hpp"
#include "topologies/host_cost.hpp"

namespace trainsim {

struct FabricCalibration;

/// single-switch: every NIC on one switch. fat-tree: leaf/spine(/core) with an
/// oversubscription ratio. rail-optimized: NIC i of every node on rail i's leaves.
/// ideal: infinite bandwidth and zero latency, for checking models.
enum class Fabric { single_switch, fat_tree, rail_optimized, ideal };

/// What the NICs and switches speak, which sets the fraction of line rate collectives reach
/// (topologies/protocol_efficiency.cpp): InfiniBand, NVIDIA Spectrum-X Ethernet (RoCE with
/// adaptive routing and congestion control), or plain RoCE Ethernet.
enum class Network { infiniband, spectrum_x, roce };

struct ClusterSpec {
  std::string preset = "custom";
  GpuSpec gpu;
  int nodes = 1;
  int gpus_per_node = 8;  ///< GPUs of one host: they share its NICs and host link
  /// GPUs per NVLink domain: GPUs that reach each other over NVLink through one NVSwitch
  /// fabric, on consecutive nodes (GB200 NVL72: 72 GPUs on 18 compute trays of 4). 0: one
  /// node's GPUs (DGX, HGX). A multiple of gpus_per_node that divides the cluster's GPUs
  /// (sim/scenario/scenario_fields_cluster.cpp).
  int nvlink_domain = 0;
  /// GPUs the job uses in each NVLink domain, whole nodes from the first (NVIDIA's GB200 and
  /// GB300 benchmark jobs use 64 of a rack's 72 GPUs past one rack, 8 to 64 within one). 0:
  /// the whole domain, or every GPU of a job smaller than one domain. A multiple of
  /// gpus_per_node, at most nvlink_domain, dividing the cluster's GPUs.
  int gpus_per_domain = 0;
  Fabric fabric = Fabric::fat_tree;
  Network network = Network::infiniband;
  /// The InfiniBand switches reduce (SHARP: Quantum-2, Quantum-X800) and NCCL loads its
  /// CollNet plugin, so all-reduces across NVLink domains may reduce in the network.
  bool sharp = false;
  /// NCCL may run NVLink SHARP (NVLS, NVLS-tree) where the switches reduce; false is
  /// NCCL_NVLS_ENABLE=0 (NVIDIA's MLPerf Training v5.1 GB200 configs set it): rings and trees.
  bool nvls = true;
  /// NCCL_MIN_CTAS: the fewest CTAs (one per channel, one SM each) NCCL runs a collective
  /// on; 0: NCCL's own count (sim/step/nccl_overlap.hpp).
  int nccl_min_ctas = 0;
  double nvlink_bandwidth_Bps = 0;  ///< per GPU, per direction
  double nvlink_latency_s = 0;
  int nics_per_node = 8;
  double nic_bandwidth_Bps = 0;        ///< per NIC, per direction
  double nic_latency_s = 0;            ///< NIC to first switch
  double switch_latency_s = 0;         ///< per switch hop
  double oversubscription = 1.0;       ///< fat-tree leaf down:up bandwidth ratio (>= 1)
  int fat_tree_levels = 2;             ///< 2 (leaf/spine) or 3 (leaf/spine/core)
  double host_link_bandwidth_Bps = 0;  ///< GPU <-> host (PCIe), for CPU offload
  HostCpu host = HostCpu::x86;         ///< the CPU that issues the GPUs' work (host_cost.hpp)
  /// Kernel timings: "auto" (kernels/calibration/<gpu>.csv if shipped), "none" (datasheet
  /// roofline), or the path of a calibration table.
  std::string calibration = "auto";
  /// Collectives inside one NVLink domain and across domains as the user measured them with
  /// nccl-tests (topologies/fabric_calibration.hpp; cluster.fabric_calibration); null: the built-in ones.
  std::shared_ptr<const FabricCalibration> fabric_calibration;
  /// GPUs slower than the others, by id (ascending), at slow_gpu_speed of their compute rate:
  /// the scenario's [variations] resolved once (topologies/slow_parts.hpp, with_slow_parts)
  /// by the step simulation (not keys), as the slow NICs and uplinks below.
  std::vector<int> slow_gpus;
  double slow_gpu_speed = 1.0;
  /// NICs slower than the others, by id (node x nics_per_node + index), at slow_nic_speed of
  /// their bandwidth.
  std::vector<int> slow_nics;
  double slow_nic_speed = 1.0;
  /// Leaf uplink cables down (leaf x uplinks per leaf + index): each leaf's aggregate uplink
  /// keeps the cables left (ECMP spreads its traffic over them).
  std::vector<int> down_uplinks;
  /// Spine switches down (pod or rail x uplinks per leaf + index; one group on a two-level fat
  /// tree): every leaf of its group loses its cable to it (uplink index = the spine's index
  /// in its group), and the group's uplink to the core layer the spine's share.
  std::vector<int> down_spines;

  /// Every member equal (the same fabric calibration object, not equal contents).
  bool operator==(const ClusterSpec&) const = default;
  int total_gpus() const { return nodes * gpus_per_node; }
  /// GPUs of one NVLink domain as built (nvlink_domain, or a node's GPUs when it is 0).
  int physical_domain_gpus() const { return nvlink_domain > 0 ? nvlink_domain : gpus_per_node; }
  /// GPUs of the job per NVLink domain: what the rank mapping, the platform and the
  /// collectives treat as a domain (gpus_per_domain, else the whole domain, or the job's
  /// GPUs when it is smaller than one domain).
  int domain_gpus() const {
    if (gpus_per_domain > 0) return gpus_per_domain;
    if (nvlink_domain > 0 && total_gpus() < nvlink_domain) return total_gpus();
    return physical_domain_gpus();
  }
  /// Nodes per NVLink domain (1 on DGX/HGX), at least 1.
  int nodes_per_domain() const { return domain_gpus() > gpus_per_node ? domain_gpus() / gpus_per_node : 1; }
  /// NVLink domains in the cluster (a last partial domain counts).
  int domains() const { return (total_gpus() + domain_gpus() - 1) / domain_gpus(); }
};

/// The cluster preset of that name (the data folder's presets/clusters/NAME.ini), or nothing:
/// defined by sim/scenario/preset_library.cpp, which reads the files (link trainsim::scenario).
std::optional<ClusterSpec> cluster_preset(std::string_view name);
std::vector<std::string> cluster_preset_names();
/// The preset names joined by ", ", for help texts.
std::string cluster_preset_list();

}  // namespace trainsim
