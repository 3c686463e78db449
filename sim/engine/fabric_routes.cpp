#include "sim/engine/fabric_routes.hpp"

#include <stdexcept>
#include <string>

namespace trainsim::engine {

double FabricRoutes::bandwidth_Bps(int link) const {
  const int cable = link / 2;
  if (cable < gpus) return nvlink_port_Bps;
  if (cable < endpoints)
    return slow_nic.empty() || !slow_nic[static_cast<size_t>(cable - gpus)] ? nic_port_Bps
                                                                            : nic_port_Bps * slow_nic_scale;
  if (cable >= endpoints + leaves())
    return group_uplink_scale.empty()
               ? group_uplink_Bps
               : group_uplink_Bps * group_uplink_scale[static_cast<size_t>(cable - endpoints - leaves())];
  return leaf_uplink_scale.empty() ? leaf_uplink_Bps
                                   : leaf_uplink_Bps * leaf_uplink_scale[static_cast<size_t>(cable - endpoints)];
}

double FabricRoutes::latency_s(int link) const {
  const int cable = link / 2;
  if (cable < gpus) return nvlink_port_s;
  return cable < endpoints ? nic_port_s : uplink_s;
}

namespace {

// Appends `link` (none when negative) to the route and, when `with_latency`, its latency.
void add(const FabricRoutes& r, RouteLinks& into, int link, bool with_latency) {
  if (link < 0) return;
  into.links[static_cast<size_t>(into.count++)] = link;
  if (with_latency) into.latency_s += r.latency_s(link);
}

void add_latency(const FabricRoutes& r, RouteLinks& into, int link) {
  if (link >= 0) into.latency_s += r.latency_s(link);
}

}  // namespace

void FabricRoutes::route(int a, int b, RouteLinks& into) const {
  if (a < 0 || b < 0 || a >= endpoints || b >= endpoints || (a < gpus) != (b < gpus))
    throw std::logic_error("FabricRoutes: no route from endpoint " + std::to_string(a) + " to " + std::to_string(b));
  const int up_a = port(a);        // leaves a
  const int down_b = port(b) + 1;  // enters b
  const int leaf_a = a < gpus ? 0 : leaf_of_nic[static_cast<size_t>(a - gpus)];
  const int leaf_b = b < gpus ? 0 : leaf_of_nic[static_cast<size_t>(b - gpus)];
  if (a < gpus || leaf_a == leaf_b) {  // through the node's NVSwitch, or under one leaf switch
    add(*this, into, up_a, true);
    add(*this, into, down_b, true);
    return;
  }
  const int leaf_up_a = leaf_uplink(leaf_a);
  const int leaf_down_b = leaf_uplinks ? leaf_uplink(leaf_b) + 1 : -1;
  const int group_a = group_of_leaf[static_cast<size_t>(leaf_a)];
  const int group_b = group_of_leaf[static_cast<size_t>(leaf_b)];
  if (group_a == group_b) {
    // The zone tree's order: the group's (or root's) hop between the two leaves, then each side.
    add_latency(*this, into, leaf_up_a);
    add_latency(*this, into, leaf_down_b);
    add_latency(*this, into, up_a);
    add_latency(*this, into, down_b);
    for (const int l : {up_a, leaf_up_a, leaf_down_b, down_b}) add(*this, into, l, false);
    return;
  }
  // Across groups: the root's hop between the groups, then the source group's hop to its
  // leaf and the leaf's to the NIC, then the same on the destination's side.
  const int core_up_a = group_uplink(group_a);
  const int core_down_b = groups > 0 ? group_uplink(group_b) + 1 : -1;
  for (const int l : {core_up_a, core_down_b, leaf_up_a, up_a, leaf_down_b, down_b}) add_latency(*this, into, l);
  for (const int l : {up_a, leaf_up_a, core_up_a, core_down_b, leaf_down_b, down_b}) add(*this, into, l, false);
}

}  // namespace trainsim::engine
