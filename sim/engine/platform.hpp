#pragma once
// The cluster as a SimGrid platform: one host per GPU, one host per NIC, and links with
// the fabric's bandwidth (line rate x protocol efficiency) and latency. Built from a
// ClusterSpec through the same FabricLayout as the cluster graph (topologies/).
//
// Layout: one SimGrid zone, "cluster" (fabric_zone.hpp), holds every host and link and
// routes by endpoint index, so that building it is linear in the cluster (a tree of star
// zones made SimGrid 3.32 look every host name up in every zone: quadratic).
// - every GPU hangs on its NVLink domain's switch fabric by its NVLink port (split-duplex,
//   per direction): the domain is a node's NVSwitches on DGX/HGX, the 9 NVLink Switch trays
//   of a GB200 NVL72 rack (which give every GPU its full NVLink bandwidth to any other of
//   the 72). GPU to GPU crosses the two ports; hops() never pairs GPUs of different domains.
// - every NIC hangs on its leaf switch by its port; leaves on their parent by one
//   aggregated uplink (the leaf's total uplink capacity, i.e. ideal ECMP/adaptive routing
//   over the spines); pods (3-level fat-tree) and rails (rail-optimized) on the core by
//   their group uplink. NIC to NIC crosses the uplinks of every level it climbs.
// A message between GPUs of different NVLink domains travels NIC to NIC (a GPU's NIC is its
// node's: the NICs sit in the compute trays); GPUs of one domain on different nodes talk over
// NVLink only. A GPU reaches its NIC over
// PCIe without touching NVLink. On rail-optimized fabrics NCCL's PXN (NCCL 2.12 release
// notes: "PXN ... uses NVLink to move data to the GPU on the same rail as the destination")
// first moves the data over NVLink to the sender node's GPU on the destination's rail, so
// traffic never changes rail in the network.
//
// Link latencies: an NVLink port carries half the NVLink hop latency each way; a NIC port
// half the NIC latency plus half a switch hop; each uplink one switch hop per direction.
// So GPU-GPU in a node costs nvlink_latency_s, NIC-NIC under one leaf nic_latency_s +
// switch_latency_s (NCCL's 2.7 us network hop with the cluster presets' values, topologies/presets/clusters/), and
// each level climbed adds two switch hops.

#include <simgrid/forward.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "sim/engine/fabric_routes.hpp"
#include "topologies/cluster_spec.hpp"
#include "topologies/fabric_layout.hpp"
#include "topologies/protocol_efficiency.hpp"

namespace trainsim::engine {

/// One leg of a message: between two simulated hosts, identified by endpoint index
/// (GPUs first: endpoint g is GPU g; then NICs: gpu_count + node * nics_per_node + nic).
struct Hop {
  int src = 0;
  int dst = 0;
};

/// The legs of a message, without allocating (plans have millions): none, one (NVLink, or NIC
/// to NIC) or two (PXN: over NVLink to the relay, then along the rail).
class Hops {
 public:
  Hops() = default;
  explicit Hops(Hop only) : hops_{only, Hop{}}, count_(1) {}
  Hops(Hop first, Hop second) : hops_{first, second}, count_(2) {}
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  const Hop& operator[](size_t i) const { return hops_[i]; }
  const Hop& back() const { return hops_[count_ - 1]; }
  const Hop* begin() const { return hops_.data(); }
  const Hop* end() const { return hops_.data() + count_; }

 private:
  std::array<Hop, 2> hops_{};
  size_t count_ = 0;
};

class Platform {
 public:
  /// Builds the platform on the process' engine (create a Simulation first). Throws
  /// InputError for a cluster SimGrid cannot represent (zero bandwidth on a used link).
  /// `built`: the endpoints to build (endpoint_selection.hpp), empty for all. The others get
  /// no host and no port (uplinks are all built), so a simulation that never touches them
  /// builds a fraction of a large cluster; SimGrid's constraints keep their relative order,
  /// so simulated times are those of the whole platform, to the bit (tests/engine).
  explicit Platform(const ClusterSpec& cluster, std::vector<bool> built = {});
  /// The same cluster with no SimGrid object at all (no engine needed; host() throws for
  /// every endpoint): its hops, latencies and routes serve to plan, before choosing the
  /// endpoints a platform must build (plan_runner.hpp: prepare_lone_plan).
  static Platform without_simgrid(const ClusterSpec& cluster);

  const ClusterSpec& cluster() const { return cluster_; }
  const FabricLayout& layout() const { return layout_; }
  int gpu_count() const { return cluster_.total_gpus(); }
  int node_of(int gpu) const { return gpu / cluster_.gpus_per_node; }
  int local_index(int gpu) const { return gpu % cluster_.gpus_per_node; }
  /// The NVLink domain of `gpu` (its node on DGX/HGX; its rack on GB200 NVL72).
  int domain_of(int gpu) const { return gpu / cluster_.domain_gpus(); }
  /// Whether `gpus` (not empty) share one NVLink domain.
  bool in_one_domain(const std::vector<int>& gpus) const;
  /// Compute NICs in one NVLink domain.
  int nics_per_domain() const { return layout_.nics_per_node * cluster_.nodes_per_domain(); }
  int endpoint_count() const { return static_cast<int>(hosts_.size()); }
  int nic_endpoint(int node, int nic) const { return gpu_count() + node * layout_.nics_per_node + nic; }
  /// The host of `endpoint`; a logic error for an endpoint the platform did not build.
  simgrid::s4u::Host* host(int endpoint) const {
    simgrid::s4u::Host* h = hosts_[static_cast<size_t>(endpoint)];
    if (h == nullptr) throw_not_built(endpoint);
    return h;
  }
  /// Whether `endpoint` has a host and a port.
  bool built(int endpoint) const { return hosts_[static_cast<size_t>(endpoint)] != nullptr; }

  /// The legs of a message from `src_gpu` to `dst_gpu` (empty when they are equal).
  Hops hops(int src_gpu, int dst_gpu) const;
  /// Latency of one leg, in seconds: the sum of its links' latencies.
  double hop_latency_s(const Hop& hop) const;
  /// Latency of a message from `src_gpu` to `dst_gpu` over all its legs, in seconds.
  double latency_s(int src_gpu, int dst_gpu) const;
  /// The platform's links and routes by number, as its SimGrid zone routes (fabric_routes.hpp).
  const FabricRoutes& routes() const { return routes_; }
  /// Names of the SimGrid links a message from `src_gpu` to `dst_gpu` crosses, in order.
  std::vector<std::string> link_names(int src_gpu, int dst_gpu) const;

  /// Simulated NVLink bandwidth per GPU per direction, bytes/s (line rate x efficiency).
  double nvlink_Bps() const { return nvlink_Bps_; }
  /// Simulated bandwidth per NIC per direction, bytes/s (line rate x efficiency).
  double nic_Bps() const { return nic_Bps_; }
  /// NVLink SHARP's per-GPU rate inside an NVLink domain, bytes/s (NVLink line rate x NVLS efficiency);
  /// 0 where the switches cannot reduce (A100, the ideal fabric).
  double nvls_Bps() const { return nvls_Bps_; }
  /// The NVLS stage's per-GPU rate in an NVLS-tree across domains, bytes/s (line rate x
  /// efficiency().nvls_tree); 0 where the switches cannot reduce.
  double nvls_tree_Bps() const { return nvls_tree_Bps_; }
  /// The fabric's efficiencies and measured in-domain collectives (topologies/protocol_efficiency.hpp).
  const ProtocolEfficiency& efficiency() const { return efficiency_; }

 private:
  enum class Build { simgrid, none };
  Platform(const ClusterSpec& cluster, std::vector<bool> built, Build build);
  void build(const std::vector<bool>& built);
  [[noreturn]] static void throw_not_built(int endpoint);
  int leaf_of_endpoint(int endpoint) const;

  ClusterSpec cluster_;
  FabricLayout layout_;
  ProtocolEfficiency efficiency_;
  double nvlink_Bps_ = 0;
  double nic_Bps_ = 0;
  double nvls_Bps_ = 0;
  double nvls_tree_Bps_ = 0;
  double uplink_scale_ = 1;  ///< efficiency applied to uplinks (network efficiency)
  FabricRoutes routes_;
  std::vector<simgrid::s4u::Host*> hosts_;
};

}  // namespace trainsim::engine
