#include "sim/engine/nccl_channels.hpp"

#include <algorithm>

namespace trainsim::engine {

NcclCtaLimits nccl_cta_limits(NcclCtaLimits per_communicator, NcclCtaLimits environment) {
  NcclCtaLimits l = per_communicator;
  if (environment.min_ctas > 0) l.min_ctas = environment.min_ctas;
  if (environment.max_ctas > 0) l.max_ctas = environment.max_ctas;
  l.min_ctas = std::min(l.min_ctas > 0 ? l.min_ctas : 1, k_nccl_max_channels);
  l.max_ctas = std::min(l.max_ctas > 0 ? l.max_ctas : k_nccl_max_channels, k_nccl_max_channels);
  l.min_ctas = std::min(l.min_ctas, l.max_ctas);
  return l;
}

int nccl_comm_channels(int search_channels, double ring_speed_GBps, int nodes, NcclCtaLimits limits) {
  int c = std::min(k_nccl_max_channels, 2 * std::max(1, search_channels));
  if (nodes > 1 && ring_speed_GBps > 45.0 && c < 16) c *= 2;  // SM90+ (Blackwell here)
  c = std::min(c, limits.max_ctas > 0 ? limits.max_ctas : k_nccl_max_channels);
  return std::max(c, limits.min_ctas);
}

int nccl_nvls_channels(int tuned, NcclCtaLimits limits) {
  const int hi = limits.max_ctas > 0 ? limits.max_ctas : k_nccl_max_channels;
  return std::max(limits.min_ctas, std::min(hi, tuned));
}

int nccl_collective_channels(int comm_channels, double bytes, int threads, double threshold) {
  int nc = comm_channels;
  while (nc >= 2 && bytes < static_cast<double>(nc) * threads * threshold) --nc;
  return std::max(1, nc);
}

}  // namespace trainsim::engine
