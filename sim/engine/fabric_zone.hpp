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
// The zone's hosts are the endpoints built, in endpoint order: the zone maps a host's
// netpoint id to its endpoint (ZoneRoutes).

#include <simgrid/kernel/routing/NetZoneImpl.hpp>

#include <vector>

#include "sim/engine/fabric_routes.hpp"

namespace trainsim::engine {

/// What the zone routes with: the routes by link number (fabric_routes.hpp), each number's
/// SimGrid link (null for the ports of endpoints not built), and each host's endpoint.
struct ZoneRoutes {
  FabricRoutes routes;
  std::vector<simgrid::kernel::resource::StandardLinkImpl*> links;  ///< per link number
  std::vector<int> endpoint_of_netpoint;  ///< per netpoint id: its endpoint (the endpoints built)
};

class FabricZone final : public simgrid::kernel::routing::NetZoneImpl {
 public:
  /// A zone named `name`, the platform's root when none exists yet, else a child of it.
  explicit FabricZone(const std::string& name);

  /// Sets the routes; call once every host and link has been created in the zone.
  void set_routes(ZoneRoutes routes) { routes_ = std::move(routes); }

  /// The route between two endpoints (FabricRoutes::route). A GPU and a NIC have no route
  /// (Platform::hops never pairs them): asking for one is a logic error.
  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;

 private:
  ZoneRoutes routes_;
};

}  // namespace trainsim::engine
