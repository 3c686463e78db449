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

namespace {

void add(sgr::Route* into, double* latency, const RouteLink& l) {
  if (l.link == nullptr) return;
  into->link_list_.push_back(l.link);
  if (latency) *latency += l.latency_s;
}

// Accumulates a latency in the order SimGrid adds it (see fabric_zone.hpp) without the links.
void add_latency(double* latency, const RouteLink& l) {
  if (latency && l.link) *latency += l.latency_s;
}

}  // namespace

void FabricZone::get_local_route(const sgr::NetPoint* src, const sgr::NetPoint* dst, sgr::Route* into,
                                 double* latency) {
  const auto endpoint = [&](const sgr::NetPoint* p) {
    return p->id() < routes_.endpoint_of_netpoint.size()
               ? static_cast<size_t>(routes_.endpoint_of_netpoint[p->id()])
               : routes_.ports.size();
  };
  const size_t a = endpoint(src);
  const size_t b = endpoint(dst);
  const auto gpus = static_cast<size_t>(routes_.gpus);
  if (a >= routes_.ports.size() || b >= routes_.ports.size() || (a < gpus) != (b < gpus))
    throw std::logic_error(std::string("FabricZone: no route from ") + src->get_cname() + " to " + dst->get_cname());
  const DuplexPort& pa = routes_.ports[a];
  const DuplexPort& pb = routes_.ports[b];
  if (a < gpus) {  // through the node's NVSwitch
    add(into, latency, pa.up);
    add(into, latency, pb.down);
    return;
  }
  const auto leaf_a = static_cast<size_t>(routes_.leaf_of_nic[a - gpus]);
  const auto leaf_b = static_cast<size_t>(routes_.leaf_of_nic[b - gpus]);
  if (leaf_a == leaf_b) {  // under one leaf switch
    add(into, latency, pa.up);
    add(into, latency, pb.down);
    return;
  }
  const DuplexPort& up_a = routes_.leaf_up[leaf_a];
  const DuplexPort& up_b = routes_.leaf_up[leaf_b];
  const auto group_a = static_cast<size_t>(routes_.group_of_leaf[leaf_a]);
  const auto group_b = static_cast<size_t>(routes_.group_of_leaf[leaf_b]);
  if (group_a == group_b) {
    // The zone tree: the group's (or root's) hop between the two leaves, then each side.
    add_latency(latency, up_a.up);
    add_latency(latency, up_b.down);
    add_latency(latency, pa.up);
    add_latency(latency, pb.down);
    add(into, nullptr, pa.up);
    add(into, nullptr, up_a.up);
    add(into, nullptr, up_b.down);
    add(into, nullptr, pb.down);
    return;
  }
  // Across groups, the zone tree's order: the root's hop between the groups, then the
  // source group's hop to its leaf and the leaf's to the NIC, then the same on the
  // destination's side.
  const DuplexPort& core_a = routes_.group_up[group_a];
  const DuplexPort& core_b = routes_.group_up[group_b];
  add_latency(latency, core_a.up);
  add_latency(latency, core_b.down);
  add_latency(latency, up_a.up);
  add_latency(latency, pa.up);
  add_latency(latency, up_b.down);
  add_latency(latency, pb.down);
  for (const RouteLink* l : {&pa.up, &up_a.up, &core_a.up, &core_b.down, &up_b.down, &pb.down}) add(into, nullptr, *l);
}

}  // namespace trainsim::engine
