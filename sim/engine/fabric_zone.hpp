#pragma once
// The whole cluster as one SimGrid netzone whose routes are computed from the endpoints'
// indices, instead of a tree of star zones (one per leaf, pod and rail).
//
// Why (measured on SimGrid 3.32, 2 cores): creating a host looks its name up in every zone
// of the platform (HostImpl's constructor calls Host::by_name_or_null, a walk over all
// zones), and sealing a zone lists every host of the platform. With one zone per leaf
// switch both grow with the cluster, so building the platform was quadratic: 57 % of a
// 32,768-GPU all-reduce's 24 s went to these lookups, and 131,072 GPUs spent over a
// minute in them. One zone makes each lookup O(log hosts).
//
// The routes are the ones the zone tree gave, link for link and in the same order, and
// their latency is summed in the order SimGrid's recursive routing summed it
// (NetZoneImpl::get_global_route_with_netzones: the common ancestor's hop first, then
// the source side, then the destination side), so simulated times are bit-identical
// (tests/engine/fabric_zone_test.cpp compares every route with the zone tree's).
//
// Endpoints are numbered as Platform numbers them (platform.hpp): GPUs first, then NICs.
// The zone's hosts are the endpoints built, in endpoint order: FabricRoutes maps a host's
// netpoint id to its endpoint.

#include <simgrid/kernel/routing/NetZoneImpl.hpp>

#include <vector>

namespace trainsim::engine {

/// One direction of a link in a route, with its latency in seconds.
struct RouteLink {
  simgrid::kernel::resource::StandardLinkImpl* link = nullptr;
  double latency_s = 0;
};

/// A split-duplex cable: the UP direction leaves the endpoint or switch, DOWN enters it.
struct DuplexPort {
  RouteLink up;
  RouteLink down;
};

/// What routes go through: every endpoint's port, and for NICs their leaf and group.
struct FabricRoutes {
  int gpus = 0;                      ///< endpoints [0, gpus) are GPUs, the rest NICs
  std::vector<DuplexPort> ports;     ///< per endpoint: NVLink port (GPU) or NIC port
  std::vector<int> leaf_of_nic;      ///< per NIC (endpoint - gpus): its leaf switch
  std::vector<int> group_of_leaf;    ///< per leaf: its pod or rail (0 without groups)
  std::vector<DuplexPort> leaf_up;   ///< per leaf: its aggregated uplink (null link: none)
  std::vector<DuplexPort> group_up;  ///< per group: its core uplink (empty without groups)
  std::vector<int> endpoint_of_netpoint;  ///< per netpoint id: its endpoint (the endpoints built)
};

class FabricZone final : public simgrid::kernel::routing::NetZoneImpl {
 public:
  /// A zone named `name`, the platform's root when none exists yet, else a child of it.
  explicit FabricZone(const std::string& name);

  /// Sets the routes; call once every host and link has been created in the zone.
  void set_routes(FabricRoutes routes) { routes_ = std::move(routes); }

  /// The route between two endpoints: GPU to GPU over their NVLink ports (the node's
  /// NVSwitch), NIC to NIC through their leaf or leaves, and their groups' core uplinks
  /// when the groups differ. A GPU and a NIC have no route (Platform::hops never pairs
  /// them): asking for one is a logic error.
  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;

 private:
  FabricRoutes routes_;
};

}  // namespace trainsim::engine
