#include "sim/engine/platform.hpp"

#include <algorithm>

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "sim/core/error.hpp"
#include "sim/engine/fabric_zone.hpp"
#include "topologies/slow_parts.hpp"

namespace trainsim::engine {

namespace sg4 = simgrid::s4u;

namespace {

// "Infinite" bandwidth of the ideal fabric, bytes/s: 1 EB/s makes any transfer's
// bandwidth term negligible while keeping SimGrid's solver in finite arithmetic.
constexpr double k_ideal_Bps = 1e18;
// A GPU's compute speed when the GPU preset has none, FLOP/s (only Exec activities use it).
constexpr double k_default_gpu_flops = 1e15;

}  // namespace

Platform::Platform(const ClusterSpec& cluster, std::vector<bool> built)
    : Platform(cluster, std::move(built), Build::simgrid) {}

Platform Platform::without_simgrid(const ClusterSpec& cluster) {
  return Platform(cluster, {}, Build::none);
}

Platform::Platform(const ClusterSpec& cluster, std::vector<bool> built, Build how)
    : cluster_(cluster), layout_(fabric_layout(cluster)), efficiency_(protocol_efficiency(cluster)) {
  const bool ideal = cluster_.fabric == Fabric::ideal;
  nvlink_Bps_ = ideal ? k_ideal_Bps : cluster_.nvlink_bandwidth_Bps * efficiency_.nvlink;
  nic_Bps_ = ideal ? k_ideal_Bps : cluster_.nic_bandwidth_Bps * efficiency_.network;
  // cluster.nvls = false (NCCL_NVLS_ENABLE=0): no NVLS nor NVLS-tree, as where the switches cannot reduce.
  const bool no_nvls = ideal || !cluster_.nvls;
  nvls_Bps_ = no_nvls ? 0.0 : cluster_.nvlink_bandwidth_Bps * efficiency_.nvls;
  nvls_tree_Bps_ = no_nvls ? 0.0 : cluster_.nvlink_bandwidth_Bps * efficiency_.nvls_tree;
  uplink_scale_ = ideal ? k_ideal_Bps / std::max(1.0, cluster_.nic_bandwidth_Bps) : efficiency_.network;
  if (cluster_.domain_gpus() > 1 && !(nvlink_Bps_ > 0))
    throw InputError("", "cluster.nvlink_bandwidth", std::to_string(cluster_.nvlink_bandwidth_Bps),
                     "must be > 0 when nodes (or NVLink domains) have several GPUs");
  if (cluster_.nodes > 1 && !(nic_Bps_ > 0))
    throw InputError("", "cluster.nic_bandwidth", std::to_string(cluster_.nic_bandwidth_Bps),
                     "must be > 0 when the cluster has several nodes");
  if (!(nvlink_Bps_ > 0)) nvlink_Bps_ = k_ideal_Bps;  // one GPU per node: NVLink is never used
  if (!(nic_Bps_ > 0)) nic_Bps_ = k_ideal_Bps;        // one node: the network is never used
  if (!built.empty() && built.size() != static_cast<size_t>(gpu_count() + cluster_.nodes * layout_.nics_per_node))
    throw Error("Platform: the endpoints to build do not match the cluster");

  // Link latencies: an NVLink port carries half the NVLink hop latency each way; a NIC port
  // half the NIC latency plus half a switch hop; each uplink one switch hop per direction.
  const int gpus = gpu_count();
  const int nics = cluster_.nodes * layout_.nics_per_node;
  routes_.gpus = gpus;
  routes_.endpoints = gpus + nics;
  routes_.nvlink_port_Bps = nvlink_Bps_;
  routes_.nic_port_Bps = nic_Bps_;
  routes_.leaf_uplink_Bps = layout_.leaf_uplink_Bps * uplink_scale_;
  routes_.group_uplink_Bps = layout_.group_uplink_Bps * uplink_scale_;
  routes_.nvlink_port_s = ideal ? 0 : cluster_.nvlink_latency_s / 2;
  routes_.nic_port_s = ideal ? 0 : (cluster_.nic_latency_s + cluster_.switch_latency_s) / 2;
  routes_.uplink_s = ideal ? 0 : cluster_.switch_latency_s;
  routes_.leaf_uplinks = layout_.leaf_uplink_Bps > 0;
  routes_.groups = layout_.groups > 1 ? layout_.groups : 0;
  routes_.leaf_of_nic.resize(static_cast<size_t>(nics));
  for (int n = 0; n < cluster_.nodes; ++n)
    for (int i = 0; i < layout_.nics_per_node; ++i)
      routes_.leaf_of_nic[static_cast<size_t>(n * layout_.nics_per_node + i)] = layout_.leaf_of_nic(n, i);
  if (!cluster_.slow_nics.empty() && cluster_.slow_nic_speed < 1.0) {  // [variations]
    routes_.slow_nic.assign(static_cast<size_t>(nics), false);
    for (const int nic : cluster_.slow_nics)
      if (nic >= 0 && nic < nics) routes_.slow_nic[static_cast<size_t>(nic)] = true;
    routes_.slow_nic_scale = cluster_.slow_nic_speed;
  }
  if (const std::vector<int> down = down_cables_per_leaf(cluster_, layout_); !down.empty()) {  // [variations]
    // A leaf keeps one cable at least, a pod or rail one spine (the rules refuse listing all
    // of one leaf's or one group's; a draw that would take the last leaves it).
    routes_.leaf_uplink_scale.resize(down.size());
    for (size_t l = 0; l < down.size(); ++l)
      routes_.leaf_uplink_scale[l] =
          static_cast<double>(std::max(1, layout_.leaf_uplinks - down[l])) / layout_.leaf_uplinks;
    if (routes_.groups > 0 && !cluster_.down_spines.empty()) {
      std::vector<int> spines_down(static_cast<size_t>(routes_.groups), 0);
      for (const int spine : cluster_.down_spines) ++spines_down[static_cast<size_t>(spine / layout_.leaf_uplinks)];
      routes_.group_uplink_scale.resize(spines_down.size());
      for (size_t g = 0; g < spines_down.size(); ++g)
        routes_.group_uplink_scale[g] =
            static_cast<double>(std::max(1, layout_.leaf_uplinks - spines_down[g])) / layout_.leaf_uplinks;
    }
  }
  routes_.group_of_leaf.assign(static_cast<size_t>(layout_.leaves), 0);
  if (routes_.groups > 0)
    for (int leaf = 0; leaf < layout_.leaves; ++leaf)
      routes_.group_of_leaf[static_cast<size_t>(leaf)] = layout_.group_of_leaf(leaf);

  hosts_.assign(static_cast<size_t>(gpus) + static_cast<size_t>(nics), nullptr);
  if (how == Build::simgrid) build(built);
}

void Platform::throw_not_built(int endpoint) {
  throw Error("Platform: endpoint " + std::to_string(endpoint) + " was not built (endpoint_selection.hpp)");
}

void Platform::build(const std::vector<bool>& built) {
  const int gpus = gpu_count();
  const int nics = cluster_.nodes * layout_.nics_per_node;
  const auto wanted = [&](int e) { return built.empty() || built[static_cast<size_t>(e)]; };

  // One zone holds every host and link; it routes by endpoint index (fabric_zone.hpp).
  // The engine owns it (the root deletes its zones).
  auto* fabric = new FabricZone("cluster");
  sg4::NetZone* zone = fabric->get_iface();
  ZoneRoutes zone_routes;
  zone_routes.links.assign(static_cast<size_t>(routes_.link_count()), nullptr);
  // Creates the cable whose UP direction is link number `up` (DOWN: up + 1).
  auto duplex = [&](int up, const std::string& name) {
    sg4::SplitDuplexLink* link = zone->create_split_duplex_link(name, routes_.bandwidth_Bps(up));
    link->set_latency(routes_.latency_s(up))->seal();
    zone_routes.links[static_cast<size_t>(up)] = link->get_link_up()->get_impl();
    zone_routes.links[static_cast<size_t>(up) + 1] = link->get_link_down()->get_impl();
  };

  for (int g = 0; g < gpus; ++g)
    if (wanted(g)) duplex(routes_.port(g), "nvlink" + std::to_string(g));
  const std::string kind = cluster_.fabric == Fabric::rail_optimized ? "rail" : "pod";
  for (int p = 0; p < routes_.groups; ++p) duplex(routes_.group_uplink(p), kind + std::to_string(p) + "-uplink");
  std::vector<std::vector<int>> nics_of_leaf(static_cast<size_t>(layout_.leaves));
  for (int nic = 0; nic < nics; ++nic)
    nics_of_leaf[static_cast<size_t>(routes_.leaf_of_nic[static_cast<size_t>(nic)])].push_back(gpus + nic);
  auto nic_name = [&](int e) {
    const int node = (e - gpus) / layout_.nics_per_node;
    const int nic = (e - gpus) % layout_.nics_per_node;
    return "n" + std::to_string(node) + ".nic" + std::to_string(nic);
  };
  // Links in the order the zone tree created them (so SimGrid's constraints are too).
  for (int leaf = 0; leaf < layout_.leaves; ++leaf) {
    for (const int e : nics_of_leaf[static_cast<size_t>(leaf)])
      if (wanted(e)) duplex(routes_.port(e), nic_name(e));
    if (routes_.leaf_uplinks) duplex(routes_.leaf_uplink(leaf), "leaf" + std::to_string(leaf) + "-uplink");
  }
  // Hosts in endpoint order: the zone's n-th netpoint is the n-th endpoint built
  // (fabric_zone.hpp), endpoint e itself when all are.
  const double speed = cluster_.gpu.peak_bf16_flops > 0 ? cluster_.gpu.peak_bf16_flops : k_default_gpu_flops;
  for (int e = 0; e < gpus + nics; ++e) {
    if (!wanted(e)) continue;
    const auto netpoint = static_cast<unsigned long>(zone_routes.endpoint_of_netpoint.size());
    hosts_[static_cast<size_t>(e)] =
        e < gpus ? zone->create_host("gpu" + std::to_string(e), speed) : zone->create_host(nic_name(e), 1.0);
    if (hosts_[static_cast<size_t>(e)]->get_netpoint()->id() != netpoint)
      throw Error("Platform: the cluster zone numbered its hosts out of order");
    zone_routes.endpoint_of_netpoint.push_back(e);
  }
  zone_routes.routes = routes_;
  fabric->set_routes(std::move(zone_routes));
  zone->seal();
}

Hops Platform::hops(int src_gpu, int dst_gpu) const {
  if (src_gpu == dst_gpu) return {};
  const int src_node = node_of(src_gpu);
  const int dst_node = node_of(dst_gpu);
  if (domain_of(src_gpu) == domain_of(dst_gpu)) return Hops(Hop{src_gpu, dst_gpu});  // NVLink
  const int src_nic = layout_.nic_of_gpu(local_index(src_gpu));
  const int dst_nic = layout_.nic_of_gpu(local_index(dst_gpu));
  if (cluster_.fabric == Fabric::rail_optimized && src_nic != dst_nic) {
    // PXN: over NVLink to the sender node's GPU on the destination's rail, then along the rail.
    const int relay = src_node * cluster_.gpus_per_node + local_index(dst_gpu);
    return Hops(Hop{src_gpu, relay}, Hop{nic_endpoint(src_node, dst_nic), nic_endpoint(dst_node, dst_nic)});
  }
  return Hops(Hop{nic_endpoint(src_node, src_nic), nic_endpoint(dst_node, dst_nic)});
}

bool Platform::in_one_domain(const std::vector<int>& gpus) const {
  return std::all_of(gpus.begin(), gpus.end(), [&](int g) { return domain_of(g) == domain_of(gpus.front()); });
}

int Platform::leaf_of_endpoint(int endpoint) const {
  const int e = endpoint - gpu_count();
  return layout_.leaf_of_nic(e / layout_.nics_per_node, e % layout_.nics_per_node);
}

double Platform::hop_latency_s(const Hop& hop) const {
  if (cluster_.fabric == Fabric::ideal || hop.src == hop.dst) return 0;
  if (hop.src < gpu_count()) return cluster_.nvlink_latency_s;
  const int a = leaf_of_endpoint(hop.src);
  const int b = leaf_of_endpoint(hop.dst);
  double s = cluster_.nic_latency_s + cluster_.switch_latency_s;
  if (a != b) s += 2 * cluster_.switch_latency_s;
  if (layout_.groups > 1 && layout_.group_of_leaf(a) != layout_.group_of_leaf(b)) s += 2 * cluster_.switch_latency_s;
  return s;
}

double Platform::latency_s(int src_gpu, int dst_gpu) const {
  double s = 0;
  for (const Hop& h : hops(src_gpu, dst_gpu)) s += hop_latency_s(h);
  return s;
}

std::vector<std::string> Platform::link_names(int src_gpu, int dst_gpu) const {
  std::vector<std::string> names;
  for (const Hop& h : hops(src_gpu, dst_gpu)) {
    std::vector<sg4::Link*> links;
    host(h.src)->route_to(host(h.dst), links, nullptr);
    for (const sg4::Link* l : links) names.push_back(l->get_name());
  }
  return names;
}

}  // namespace trainsim::engine
