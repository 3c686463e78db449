#include "sim/engine/nccl_latency.hpp"

#include <array>
#include <cmath>

#include "sim/core/portable_math.hpp"

namespace trainsim::engine {

namespace {

// tuning.cc at 01afd20a, microseconds (public.md D1).
struct Protocol {
  NcclProtocol id;
  double ring_base_us, tree_base_us;
  double nvlink_hop_us, net_ring_hop_us, net_tree_hop_us;
  double efficiency;  ///< data bytes per byte on the wire
};

constexpr std::array<Protocol, 3> k_protocols{{
    {NcclProtocol::ll, 3.6, 4.4, 0.47, 2.7, 5.0, 0.5},
    {NcclProtocol::ll128, 10.0, 4.4, 1.9, 4.0, 8.5, 120.0 / 128.0},
    {NcclProtocol::simple, 8.4, 0.0, 3.4, 9.6, 50.0, 1.0},
}};

template <typename Time>
NcclEstimate fastest(Time time_us, double bytes, double algo_Bps, bool tree) {
  NcclEstimate best;
  bool first = true;
  for (const Protocol& p : k_protocols) {
    const double s = 1e-6 * time_us(p) + bytes / (algo_Bps * p.efficiency);
    if (first || s < best.time_s) {
      best = {p.id, s, 1e-6 * (tree ? p.tree_base_us : p.ring_base_us)};
      first = false;
    }
  }
  return best;
}

}  // namespace

NcclEstimate nccl_ring(double bytes, int ranks, double steps, double inter_steps, double bus_Bps) {
  const double algo_Bps = bus_Bps * ranks / steps;
  return fastest(
      [&](const Protocol& p) {
        return p.ring_base_us + (steps - inter_steps) * p.nvlink_hop_us + inter_steps * p.net_ring_hop_us;
      },
      bytes, algo_Bps, false);
}

NcclEstimate nccl_tree(double bytes, int ranks, int nodes, double bus_Bps) {
  const double per_node = static_cast<double>(ranks) / nodes;
  return fastest(
      [&](const Protocol& p) {
        return p.tree_base_us +
               2 * ((per_node - 1) * p.nvlink_hop_us + portable::log2(static_cast<double>(nodes)) * p.net_tree_hop_us);
      },
      bytes, bus_Bps * 0.5, true);
}

}  // namespace trainsim::engine
