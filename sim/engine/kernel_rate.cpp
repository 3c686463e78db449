#include "sim/engine/kernel_rate.hpp"

#include <algorithm>
#include <vector>

#include "sim/engine/collective_algorithm.hpp"

namespace trainsim::engine {

double endpoint_bound_s(const CommPhase& phase, const Platform& platform) {
  const size_t endpoints = static_cast<size_t>(platform.endpoint_count());
  std::vector<double> out(endpoints, 0.0), in(endpoints, 0.0);
  for (const Transfer& t : phase.transfers)
    for (const Hop& hop : platform.hops(t.src_gpu, t.dst_gpu)) {
      out[static_cast<size_t>(hop.src)] += t.bytes;
      in[static_cast<size_t>(hop.dst)] += t.bytes;
    }
  double bound = 0.0;
  for (size_t e = 0; e < endpoints; ++e) {
    const double rate = static_cast<int>(e) < platform.gpu_count() ? platform.nvlink_Bps() : platform.nic_Bps();
    if (rate > 0) bound = std::max(bound, std::max(out[e], in[e]) / rate);
  }
  return bound;
}

void pay_kernel_rate(CommPlan& plan, const CollectiveCall& call, const Platform& platform) {
  const double target_s = call.bytes / call.kernel_Bps;
  for (CommPhase& phase : plan.phases) {
    const double bound_s = endpoint_bound_s(phase, platform);
    if (bound_s > 0)
      for (Transfer& t : phase.transfers) t.bytes *= target_s / bound_s;
    phase.latency_s = max_edge_latency_s(phase.transfers, platform);
  }
}

}  // namespace trainsim::engine
