#include "sim/engine/scale_out_collective.hpp"

#include <algorithm>
#include <map>

#include "sim/engine/collective.hpp"
#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

namespace {

std::optional<CalibratedCollective> calibrated(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce:
      return CalibratedCollective::all_reduce;
    case CollectiveOp::all_gather:
      return CalibratedCollective::all_gather;
    case CollectiveOp::reduce_scatter:
      return CalibratedCollective::reduce_scatter;
    case CollectiveOp::all_to_all:
      return CalibratedCollective::all_to_all;
    case CollectiveOp::send_recv:
      return CalibratedCollective::send_recv;
    case CollectiveOp::broadcast:
      break;
  }
  return std::nullopt;
}

// The line rate that bounds `op`'s bus bandwidth across domains with `per_domain` GPUs in each.
// A ring (all-reduce, all-gather, reduce-scatter) as NCCL's ring model bounds it
// (algorithm_selection.cpp, group_bus_Bps): one NIC per channel, as many channels as GPUs per
// domain up to the domain's NICs, never above NVLink. An all-to-all or a send/receive, whose
// bus bandwidth is each rank's: that rank's share of its domain's NICs.
double line_Bps(CollectiveOp op, int per_domain, const Platform& platform) {
  const ClusterSpec& c = platform.cluster();
  const double nics = std::min(per_domain, platform.nics_per_domain());
  if (op == CollectiveOp::all_to_all || op == CollectiveOp::send_recv)
    return nics * c.nic_bandwidth_Bps / per_domain;
  return std::min(c.nvlink_bandwidth_Bps, nics * c.nic_bandwidth_Bps);
}

// A link's bandwidth as built, faults aside (a slow NIC or missing uplinks stay slow: the
// scaling below is to the healthy fabric's).
double healthy_Bps(const FabricRoutes& r, int link) {
  const int cable = link / 2;
  if (cable < r.gpus) return r.nvlink_port_Bps;
  if (cable < r.endpoints) return r.nic_port_Bps;
  return cable >= r.endpoints + r.leaves() ? r.group_uplink_Bps : r.leaf_uplink_Bps;
}

// The time the plan's bytes need on its most loaded link, phase after phase, in seconds. Links,
// not only the endpoints' ports (kernel_rate.hpp's endpoint_bound_s): a measured fabric with
// oversubscribed uplinks keeps its measured time.
double bottleneck_s(const CommPlan& plan, const Platform& platform) {
  const FabricRoutes& routes = platform.routes();
  double total = 0;
  for (const CommPhase& phase : plan.phases) {
    std::map<int, double> load;
    for (const Transfer& t : phase.transfers) {
      const Hops hops = platform.hops(t.src_gpu, t.dst_gpu);
      for (std::size_t h = 0; h < hops.size(); ++h) {
        RouteLinks links;
        routes.route(hops[h].src, hops[h].dst, links);
        for (int i = 0; i < links.count; ++i) load[links.links[static_cast<std::size_t>(i)]] += t.bytes;
      }
    }
    double worst = 0;
    for (const auto& [link, bytes] : load) worst = std::max(worst, bytes / healthy_Bps(routes, link));
    total += worst;
  }
  return total;
}

}  // namespace

const FittedCollective* scale_out_fit(const CollectiveCall& call, const Platform& platform) {
  const auto& calibration = platform.cluster().fabric_calibration;
  const auto c = calibrated(call.op);
  if (!calibration || !c || call.gpus.size() < 2) return nullptr;
  const FittedCollective& f = calibration->at(FabricTier::scale_out, *c);
  if (!f.fitted()) return nullptr;
  const auto domains = gpus_by_node(call.gpus, platform);
  if (domains.size() < 2) return nullptr;
  for (const auto& d : domains)
    if (d.size() != domains.front().size()) return nullptr;
  return &f;
}

double scale_out_latency_s(const CollectiveCall& call, const Platform& platform) {
  const FittedCollective& f = *scale_out_fit(call, platform);
  const auto c = *calibrated(call.op);
  const int n = static_cast<int>(call.gpus.size());
  const int d = static_cast<int>(gpus_by_node(call.gpus, platform).size());
  // The steps inside the domains at the file's own in-domain per-step latency (0 without an
  // in-domain tier), as calibrate fitted them.
  const FittedCollective& in = (*platform.cluster().fabric_calibration)[c];
  return f.scale_out_time_s(0, n, d, 0, c, in.fitted() ? in.step_latency_s : 0.0);
}

double scale_out_time_s(const CollectiveCall& call, const Platform& platform) {
  const FittedCollective& f = *scale_out_fit(call, platform);
  const int n = static_cast<int>(call.gpus.size());
  const int per_domain = n / static_cast<int>(gpus_by_node(call.gpus, platform).size());
  const double bus_Bps =
      f.bus_bandwidth_Bps * line_Bps(call.op, per_domain, platform) / line_Bps(call.op, f.ranks_per_domain, platform);
  return scale_out_latency_s(call, platform) + call.bytes * bus_bandwidth_factor(call.op, n) / bus_Bps;
}

void pay_scale_out_cost(CommPlan& plan, const CollectiveCall& call, const Platform& platform,
                        const CommPlan* reference) {
  if (plan.phases.empty()) return;
  const double latency_s = scale_out_latency_s(call, platform);
  const double bytes_s = scale_out_time_s(call, platform) - latency_s;
  const double plan_s = bottleneck_s(reference != nullptr ? *reference : plan, platform);
  const double scale = plan_s > 0 ? bytes_s / plan_s : 1.0;
  for (CommPhase& phase : plan.phases) {
    phase.latency_s = 0;
    for (Transfer& t : phase.transfers) t.bytes *= scale;
  }
  plan.phases.front().latency_s = latency_s;
}

}  // namespace trainsim::engine
