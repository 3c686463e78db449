#include "tests/engine/zoned_reference_platform.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>

#include "topologies/fabric_layout.hpp"
#include "topologies/protocol_efficiency.hpp"

namespace trainsim::engine::test {

namespace sg4 = simgrid::s4u;

namespace {

// As sim/engine/platform.cpp (Platform's constructor).
constexpr double k_ideal_Bps = 1e18;
constexpr double k_default_gpu_flops = 1e15;

struct Bandwidths {
  double nvlink = 0;
  double nic = 0;
  double uplink_scale = 1;
};

Bandwidths bandwidths(const ClusterSpec& c) {
  const ProtocolEfficiency eff = protocol_efficiency(c);
  const bool ideal = c.fabric == Fabric::ideal;
  Bandwidths b;
  b.nvlink = ideal ? k_ideal_Bps : c.nvlink_bandwidth_Bps * eff.nvlink;
  b.nic = ideal ? k_ideal_Bps : c.nic_bandwidth_Bps * eff.network;
  b.uplink_scale = ideal ? k_ideal_Bps / std::max(1.0, c.nic_bandwidth_Bps) : eff.network;
  if (!(b.nvlink > 0)) b.nvlink = k_ideal_Bps;
  if (!(b.nic > 0)) b.nic = k_ideal_Bps;
  return b;
}

sg4::LinkInRoute up(sg4::Link* link) {
  return sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::UP);
}

void add_star_route(sg4::NetZone* zone, sg4::Host* host, sg4::Link* link) {
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {up(link)}, true);
}

}  // namespace

std::vector<sg4::Host*> build_zoned_reference(const ClusterSpec& cluster, const std::string& prefix) {
  const FabricLayout layout = fabric_layout(cluster);
  const Bandwidths bw = bandwidths(cluster);
  const double nvlink_Bps = bw.nvlink, nic_Bps = bw.nic, uplink_scale = bw.uplink_scale;
  const auto gpu_count = [&] { return cluster.total_gpus(); };
  const auto nic_endpoint = [&](int node, int nic) { return gpu_count() + node * layout.nics_per_node + nic; };
  std::vector<sg4::Host*> hosts;
  const bool ideal = cluster.fabric == Fabric::ideal;
  const double nvlink_port_s = ideal ? 0 : cluster.nvlink_latency_s / 2;
  const double nic_port_s = ideal ? 0 : (cluster.nic_latency_s + cluster.switch_latency_s) / 2;
  const double switch_s = ideal ? 0 : cluster.switch_latency_s;
  const int gpus = gpu_count();
  const int nics = cluster.nodes * layout.nics_per_node;
  hosts.assign(static_cast<size_t>(gpus) + static_cast<size_t>(nics), nullptr);

  // Order matters for speed on SimGrid 3.32: every link name is checked against every zone
  // and every zone seal scans every host, so links are created while few zones exist and
  // leaf zones are sealed before the GPU hosts exist.
  sg4::NetZone* top = sg4::Engine::get_instance()->get_netzone_root();
  auto* root = sg4::create_star_zone(prefix + "cluster");
  if (top) root->set_parent(top);  // beside the platform it is compared with
  auto* gpu_zone = sg4::create_star_zone(prefix + "gpus");
  gpu_zone->set_parent(root);
  std::vector<sg4::Link*> nvlinks(static_cast<size_t>(gpus));
  for (int g = 0; g < gpus; ++g)
    nvlinks[static_cast<size_t>(g)] = gpu_zone->create_split_duplex_link(prefix + "nvlink" + std::to_string(g), nvlink_Bps)
                                          ->set_latency(nvlink_port_s)
                                          ->seal();

  const bool grouped = layout.groups > 1;
  std::vector<sg4::NetZone*> parents{root};
  if (grouped) {
    parents.clear();
    const std::string kind = cluster.fabric == Fabric::rail_optimized ? "rail" : "pod";
    for (int p = 0; p < layout.groups; ++p) {
      const std::string name = prefix + kind + std::to_string(p);
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
      auto* uplink = root->create_split_duplex_link(name + "-uplink", layout.group_uplink_Bps * uplink_scale)
                         ->set_latency(switch_s)
                         ->seal();
      root->add_route(zone->get_netpoint(), nullptr, gateway, nullptr, {up(uplink)}, true);
      parents.push_back(zone);
    }
  }
  std::vector<std::vector<int>> nics_of_leaf(static_cast<size_t>(layout.leaves));
  for (int n = 0; n < cluster.nodes; ++n)
    for (int i = 0; i < layout.nics_per_node; ++i)
      nics_of_leaf[static_cast<size_t>(layout.leaf_of_nic(n, i))].push_back(nic_endpoint(n, i));
  auto parent_of = [&](int leaf) { return parents[grouped ? static_cast<size_t>(layout.group_of_leaf(leaf)) : 0]; };

  std::vector<sg4::Link*> nic_links(hosts.size(), nullptr);
  std::vector<sg4::Link*> leaf_uplinks(static_cast<size_t>(layout.leaves), nullptr);
  for (int leaf = 0; leaf < layout.leaves; ++leaf) {
    sg4::NetZone* parent = parent_of(leaf);
    for (const int e : nics_of_leaf[static_cast<size_t>(leaf)]) {
      const int node = (e - gpus) / layout.nics_per_node;
      const int nic = (e - gpus) % layout.nics_per_node;
      nic_links[static_cast<size_t>(e)] =
          parent->create_split_duplex_link(prefix + "n" + std::to_string(node) + ".nic" + std::to_string(nic), nic_Bps)
              ->set_latency(nic_port_s)
              ->seal();
    }
    if (layout.leaf_uplink_Bps > 0)
      leaf_uplinks[static_cast<size_t>(leaf)] =
          parent
              ->create_split_duplex_link(prefix + "leaf" + std::to_string(leaf) + "-uplink",
                                         layout.leaf_uplink_Bps * uplink_scale)
              ->set_latency(switch_s)
              ->seal();
  }
  for (int leaf = 0; leaf < layout.leaves; ++leaf) {
    sg4::NetZone* parent = parent_of(leaf);
    const std::string name = prefix + "leaf" + std::to_string(leaf);
    auto* zone = sg4::create_star_zone(name);
    zone->set_parent(parent);
    if (sg4::Link* uplink = leaf_uplinks[static_cast<size_t>(leaf)]) {
      auto* gateway = zone->create_router(name + "-gw");
      parent->add_route(zone->get_netpoint(), nullptr, gateway, nullptr, {up(uplink)}, true);
    }
    for (const int e : nics_of_leaf[static_cast<size_t>(leaf)]) {
      const int node = (e - gpus) / layout.nics_per_node;
      const int nic = (e - gpus) % layout.nics_per_node;
      sg4::Host* h = zone->create_host(prefix + "n" + std::to_string(node) + ".nic" + std::to_string(nic), 1.0);
      add_star_route(zone, h, nic_links[static_cast<size_t>(e)]);
      hosts[static_cast<size_t>(e)] = h;
    }
    zone->seal();
  }
  const double speed = cluster.gpu.peak_bf16_flops > 0 ? cluster.gpu.peak_bf16_flops : k_default_gpu_flops;
  for (int g = 0; g < gpus; ++g) {
    sg4::Host* h = gpu_zone->create_host(prefix + "gpu" + std::to_string(g), speed);
    add_star_route(gpu_zone, h, nvlinks[static_cast<size_t>(g)]);
    hosts[static_cast<size_t>(g)] = h;
  }
  gpu_zone->seal();
  root->seal();
  return hosts;
}

}  // namespace trainsim::engine::test
