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
    {NcclProtocol::ll, k_nccl_ll_ring_base_s * 1e6, 4.4, 0.47, 2.7, 5.0, k_nccl_ll_efficiency},
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

// The NVLink hop of `p`, microseconds: NCCL's, or the measured step of a bandwidth protocol.
double nvlink_hop_us(const Protocol& p, double nvlink_step_s) {
  return nvlink_step_s > 0 && p.id != NcclProtocol::ll ? 1e6 * nvlink_step_s : p.nvlink_hop_us;
}

}  // namespace

NcclEstimate nccl_ring(double bytes, int ranks, double steps, double inter_steps, double bus_Bps,
                       double nvlink_step_s) {
  const double algo_Bps = bus_Bps * ranks / steps;
  return fastest(
      [&](const Protocol& p) {
        return p.ring_base_us + (steps - inter_steps) * nvlink_hop_us(p, nvlink_step_s) +
               inter_steps * p.net_ring_hop_us;
      },
      bytes, algo_Bps, false);
}

NcclEstimate nccl_tree(double bytes, int ranks, int nodes, double bus_Bps, double nvlink_step_s) {
  const double per_node = static_cast<double>(ranks) / nodes;
  return fastest(
      [&](const Protocol& p) {
        return p.tree_base_us + 2 * ((per_node - 1) * nvlink_hop_us(p, nvlink_step_s) +
                                     portable::log2(static_cast<double>(nodes)) * p.net_tree_hop_us);
      },
      bytes, bus_Bps * 0.5, true);
}

}  // namespace trainsim::engine
