#include "sim/engine/platform.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "sim/core/error.hpp"

namespace trainsim::engine {

namespace sg4 = simgrid::s4u;

namespace {

// "Infinite" bandwidth of the ideal fabric, bytes/s: 1 EB/s makes any transfer's
// bandwidth term negligible while keeping SimGrid's solver in finite arithmetic.
constexpr double k_ideal_Bps = 1e18;
// A GPU's compute speed when the GPU preset has none, FLOP/s (only Exec activities use it).
constexpr double k_default_gpu_flops = 1e15;

sg4::LinkInRoute up(sg4::Link* link) {
  return sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::UP);
}

void add_star_route(sg4::NetZone* zone, sg4::Host* host, sg4::Link* link) {
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {up(link)}, true);
}

}  // namespace

Platform::Platform(const ClusterSpec& cluster)
    : cluster_(cluster), layout_(fabric_layout(cluster)), efficiency_(protocol_efficiency(cluster)) {
  const bool ideal = cluster_.fabric == Fabric::ideal;
  nvlink_Bps_ = ideal ? k_ideal_Bps : cluster_.nvlink_bandwidth_Bps * efficiency_.nvlink;
  nic_Bps_ = ideal ? k_ideal_Bps : cluster_.nic_bandwidth_Bps * efficiency_.network;
  nvls_Bps_ = ideal ? 0.0 : cluster_.nvlink_bandwidth_Bps * efficiency_.nvls;
  uplink_scale_ = ideal ? k_ideal_Bps / std::max(1.0, cluster_.nic_bandwidth_Bps) : efficiency_.network;
  if (cluster_.domain_gpus() > 1 && !(nvlink_Bps_ > 0))
    throw InputError("", "cluster.nvlink_bandwidth", std::to_string(cluster_.nvlink_bandwidth_Bps),
                     "must be > 0 when nodes (or NVLink domains) have several GPUs");
  if (cluster_.nodes > 1 && !(nic_Bps_ > 0))
    throw InputError("", "cluster.nic_bandwidth", std::to_string(cluster_.nic_bandwidth_Bps),
                     "must be > 0 when the cluster has several nodes");
  if (!(nvlink_Bps_ > 0)) nvlink_Bps_ = k_ideal_Bps;  // one GPU per node: NVLink is never used
  if (!(nic_Bps_ > 0)) nic_Bps_ = k_ideal_Bps;        // one node: the network is never used
  build();
}

void Platform::build() {
  const bool ideal = cluster_.fabric == Fabric::ideal;
  const double nvlink_port_s = ideal ? 0 : cluster_.nvlink_latency_s / 2;
  const double nic_port_s = ideal ? 0 : (cluster_.nic_latency_s + cluster_.switch_latency_s) / 2;
  const double switch_s = ideal ? 0 : cluster_.switch_latency_s;
  const int gpus = gpu_count();
  const int nics = cluster_.nodes * layout_.nics_per_node;
  hosts_.assign(static_cast<size_t>(gpus) + static_cast<size_t>(nics), nullptr);

  // Order matters for speed on SimGrid 3.32: every link name is checked against every zone
  // and every zone seal scans every host, so links are created while few zones exist and
  // leaf zones are sealed before the GPU hosts exist.
  auto* root = sg4::create_star_zone("cluster");
  auto* gpu_zone = sg4::create_star_zone("gpus");
  gpu_zone->set_parent(root);
  std::vector<sg4::Link*> nvlinks(static_cast<size_t>(gpus));
  for (int g = 0; g < gpus; ++g)
    nvlinks[static_cast<size_t>(g)] = gpu_zone->create_split_duplex_link("nvlink" + std::to_string(g), nvlink_Bps_)
                                          ->set_latency(nvlink_port_s)
                                          ->seal();

  const bool grouped = layout_.groups > 1;
  std::vector<sg4::NetZone*> parents{root};
  if (grouped) {
    parents.clear();
    const std::string kind = cluster_.fabric == Fabric::rail_optimized ? "rail" : "pod";
    for (int p = 0; p < layout_.groups; ++p) {
      const std::string name = kind + std::to_string(p);
      auto* zone = sg4::create_star_zone(name);
      zone->set_parent(root);
      // The gateway lives in a link-less child zone (the pod's or rail's spine layer): on
      // SimGrid 3.32 a gateway placed directly in a zone whose hosts sit one level further
      // down loses the hosts' own links from the route (measured: NIC ports missing from
      // pod-to-pod routes).
      auto* spine = sg4::create_star_zone(name + "-spine");
      spine->set_parent(zone);
      auto* gateway = spine->create_router(name + "-gw");
      zone->add_route(spine->get_netpoint(), nullptr, gateway, nullptr, {}, true);
      spine->seal();
      auto* uplink = root->create_split_duplex_link(name + "-uplink", layout_.group_uplink_Bps * uplink_scale_)
                         ->set_latency(switch_s)
                         ->seal();
      root->add_route(zone->get_netpoint(), nullptr, gateway, nullptr, {up(uplink)}, true);
      parents.push_back(zone);
    }
  }
  std::vector<std::vector<int>> nics_of_leaf(static_cast<size_t>(layout_.leaves));
  for (int n = 0; n < cluster_.nodes; ++n)
    for (int i = 0; i < layout_.nics_per_node; ++i)
      nics_of_leaf[static_cast<size_t>(layout_.leaf_of_nic(n, i))].push_back(nic_endpoint(n, i));
  auto parent_of = [&](int leaf) { return parents[grouped ? static_cast<size_t>(layout_.group_of_leaf(leaf)) : 0]; };

  std::vector<sg4::Link*> nic_links(hosts_.size(), nullptr);
  std::vector<sg4::Link*> leaf_uplinks(static_cast<size_t>(layout_.leaves), nullptr);
  for (int leaf = 0; leaf < layout_.leaves; ++leaf) {
    sg4::NetZone* parent = parent_of(leaf);
    for (const int e : nics_of_leaf[static_cast<size_t>(leaf)]) {
      const int node = (e - gpus) / layout_.nics_per_node;
      const int nic = (e - gpus) % layout_.nics_per_node;
      nic_links[static_cast<size_t>(e)] =
          parent->create_split_duplex_link("n" + std::to_string(node) + ".nic" + std::to_string(nic), nic_Bps_)
              ->set_latency(nic_port_s)
              ->seal();
    }
    if (layout_.leaf_uplink_Bps > 0)
      leaf_uplinks[static_cast<size_t>(leaf)] =
          parent
              ->create_split_duplex_link("leaf" + std::to_string(leaf) + "-uplink",
                                         layout_.leaf_uplink_Bps * uplink_scale_)
              ->set_latency(switch_s)
              ->seal();
  }
  for (int leaf = 0; leaf < layout_.leaves; ++leaf) {
    sg4::NetZone* parent = parent_of(leaf);
    const std::string name = "leaf" + std::to_string(leaf);
    auto* zone = sg4::create_star_zone(name);
    zone->set_parent(parent);
    if (sg4::Link* uplink = leaf_uplinks[static_cast<size_t>(leaf)]) {
      auto* gateway = zone->create_router(name + "-gw");
      parent->add_route(zone->get_netpoint(), nullptr, gateway, nullptr, {up(uplink)}, true);
    }
    for (const int e : nics_of_leaf[static_cast<size_t>(leaf)]) {
      const int node = (e - gpus) / layout_.nics_per_node;
      const int nic = (e - gpus) % layout_.nics_per_node;
      sg4::Host* h = zone->create_host("n" + std::to_string(node) + ".nic" + std::to_string(nic), 1.0);
      add_star_route(zone, h, nic_links[static_cast<size_t>(e)]);
      hosts_[static_cast<size_t>(e)] = h;
    }
    zone->seal();
  }
  const double speed = cluster_.gpu.peak_bf16_flops > 0 ? cluster_.gpu.peak_bf16_flops : k_default_gpu_flops;
  for (int g = 0; g < gpus; ++g) {
    sg4::Host* h = gpu_zone->create_host("gpu" + std::to_string(g), speed);
    add_star_route(gpu_zone, h, nvlinks[static_cast<size_t>(g)]);
    hosts_[static_cast<size_t>(g)] = h;
  }
  gpu_zone->seal();
  root->seal();
}

std::vector<Hop> Platform::hops(int src_gpu, int dst_gpu) const {
  if (src_gpu == dst_gpu) return {};
  const int src_node = node_of(src_gpu);
  const int dst_node = node_of(dst_gpu);
  if (domain_of(src_gpu) == domain_of(dst_gpu)) return {Hop{src_gpu, dst_gpu}};  // NVLink
  const int src_nic = layout_.nic_of_gpu(local_index(src_gpu));
  const int dst_nic = layout_.nic_of_gpu(local_index(dst_gpu));
  if (cluster_.fabric == Fabric::rail_optimized && src_nic != dst_nic) {
    // PXN: over NVLink to the sender node's GPU on the destination's rail, then along the rail.
    const int relay = src_node * cluster_.gpus_per_node + local_index(dst_gpu);
    return {Hop{src_gpu, relay}, Hop{nic_endpoint(src_node, dst_nic), nic_endpoint(dst_node, dst_nic)}};
  }
  return {Hop{nic_endpoint(src_node, src_nic), nic_endpoint(dst_node, dst_nic)}};
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
