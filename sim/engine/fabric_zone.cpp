#include "sim/engine/fabric_zone.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <stdexcept>
#include <string>

namespace trainsim::engine {

namespace sgr = simgrid::kernel::routing;

FabricZone::FabricZone(const std::string& name) : NetZoneImpl(name) {
  // NetZoneImpl's constructor makes the first zone of the engine its root.
  const auto* root = simgrid::s4u::Engine::get_instance()->get_netzone_root();
  if (root->get_impl() != this) set_parent(root->get_impl());
}

void FabricZone::get_local_route(const sgr::NetPoint* src, const sgr::NetPoint* dst, sgr::Route* into,
                                 double* latency) {
  const auto endpoint = [&](const sgr::NetPoint* p) {
    return p->id() < routes_.endpoint_of_netpoint.size() ? routes_.endpoint_of_netpoint[p->id()] : -1;
  };
  const int a = endpoint(src);
  const int b = endpoint(dst);
  const FabricRoutes& r = routes_.routes;
  if (a < 0 || b < 0 || (a < r.gpus) != (b < r.gpus))
    throw std::logic_error(std::string("FabricZone: no route from ") + src->get_cname() + " to " + dst->get_cname());
  RouteLinks route;
  route.latency_s = latency ? *latency : 0.0;
  r.route(a, b, route);
  // One allocation for the route's links instead of one per doubling: SimGrid asks for a
  // route at every parallel task's start, twice per pair of its hosts (ptask_L07.cpp @ v3.32).
  into->link_list_.reserve(into->link_list_.size() + static_cast<size_t>(route.count));
  for (int i = 0; i < route.count; ++i) {
    auto* link = routes_.links[static_cast<size_t>(route.links[static_cast<size_t>(i)])];
    if (link == nullptr)
      throw std::logic_error(std::string("FabricZone: a link from ") + src->get_cname() + " to " + dst->get_cname() +
                             " was not built");
    into->link_list_.push_back(link);
  }
  if (latency) *latency = route.latency_s;
}

}  // namespace trainsim::engine
