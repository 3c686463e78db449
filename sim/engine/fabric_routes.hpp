#pragma once
// The platform's links and routes by number, without SimGrid: which links a message between
// two endpoints crosses, in SimGrid's order, with their bandwidths and latencies.
//
// The cluster zone (fabric_zone.hpp) routes with this table, mapping each link number to its
// SimGrid link, so what SimGrid sees and what the table says are the same routes by
// construction. Planning code reads the table before any SimGrid object exists: a lone
// collective finds the legs it can leave out (redundant_legs.hpp), and so the endpoints its
// platform needs, before the platform is built (plan_runner.hpp).
//
// Link numbers: endpoint e's port (a GPU's NVLink port, a NIC's port) is 2e in the UP
// direction (leaving the endpoint) and 2e + 1 DOWN; leaf l's aggregated uplink 2(E + l) and
// 2(E + l) + 1 (E endpoints); group g's core uplink 2(E + L + g) and 2(E + L + g) + 1
// (L leaves). Leaves without uplinks (one switch) and a fabric without groups have no such
// links: routes skip them.

#include <array>
#include <vector>

namespace trainsim::engine {

/// The links of one route, in order, and its latency accumulated link by link.
struct RouteLinks {
  std::array<int, 6> links{};
  int count = 0;
  double latency_s = 0;
};

struct FabricRoutes {
  int gpus = 0;                    ///< endpoints [0, gpus) are GPUs, the rest NICs
  int endpoints = 0;               ///< GPUs and NICs
  std::vector<int> leaf_of_nic;    ///< per NIC (endpoint - gpus): its leaf switch
  std::vector<int> group_of_leaf;  ///< per leaf: its pod or rail (0 without groups)
  bool leaf_uplinks = false;       ///< whether leaves have an uplink
  int groups = 0;                  ///< pods or rails with a core uplink (0: none)
  // Bandwidth (bytes/s per direction) and latency (s) of each kind of link.
  double nvlink_port_Bps = 0, nic_port_Bps = 0, leaf_uplink_Bps = 0, group_uplink_Bps = 0;
  double nvlink_port_s = 0, nic_port_s = 0, uplink_s = 0;
  std::vector<bool> slow_nic;  ///< per NIC (endpoint - gpus): its port runs at slow_nic_scale (empty: none)
  double slow_nic_scale = 1.0;
  std::vector<double> leaf_uplink_scale;   ///< per leaf: the share of its uplink cables up (empty: all)
  std::vector<double> group_uplink_scale;  ///< per pod or rail: the share of its spines up (empty: all)

  int leaves() const { return static_cast<int>(group_of_leaf.size()); }
  int link_count() const { return 2 * (endpoints + leaves() + groups); }
  int port(int endpoint) const { return 2 * endpoint; }
  int leaf_uplink(int leaf) const { return leaf_uplinks ? 2 * (endpoints + leaf) : -1; }
  int group_uplink(int group) const { return groups > 0 ? 2 * (endpoints + leaves() + group) : -1; }
  double bandwidth_Bps(int link) const;
  double latency_s(int link) const;

  /// Adds the route from endpoint `a` to endpoint `b` to `into`: its links in the order
  /// SimGrid lists them and their latencies in the order SimGrid adds them (fabric_zone.hpp),
  /// onto into.latency_s. GPU to GPU crosses their NVLink ports (the NVSwitch); NIC to NIC
  /// their ports, and the uplinks of every level they climb. A GPU and a NIC have no route
  /// (Platform::hops never pairs them): std::logic_error.
  void route(int a, int b, RouteLinks& into) const;
};

}  // namespace trainsim::engine
