#include "sim/engine/collnet_algorithm.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace trainsim::engine {

bool collnet_possible(const std::vector<int>& gpus, const Platform& platform) {
  if (!platform.cluster().sharp || gpus.empty()) return false;
  const auto domains = gpus_by_node(gpus, platform);
  return std::all_of(domains.begin(), domains.end(),
                     [&](const auto& d) { return d.size() == domains.front().size(); });
}

double collnet_all_reduce_s(double bytes, int per_domain, int domains, const Platform& platform) {
  const double k = per_domain;
  const ClusterSpec& c = platform.cluster();
  const bool ideal = c.fabric == Fabric::ideal;
  const double latency_s =
      ideal ? 0.0 : 2 * (c.nic_latency_s + c.switch_latency_s) + (per_domain > 1 ? 2 * c.nvlink_latency_s : 0.0);
  const double nvlink_s = 2 * (k - 1) / k * bytes / platform.nvlink_Bps();
  const double nic_s = domains > 1 ? bytes / k / platform.nic_Bps() : 0.0;
  return latency_s + std::max(nvlink_s, nic_s);
}

CommPlan CollnetAlgorithm::plan(const CollectiveCall& call, const Platform& platform) const {
  if (!collnet_possible(call.gpus, platform))
    throw InputError("", "--algo", "collnet",
                     "needs switches that reduce (cluster.sharp = true, InfiniBand) and the same number of the "
                     "collective's GPUs in every NVLink domain");
  const auto domains = gpus_by_node(call.gpus, platform);
  const size_t k = domains.front().size();
  const double kd = static_cast<double>(k);
  CommPhase phase;
  // Direct reduce-scatter and all-gather inside each domain: 2 S / k between every pair.
  for (const auto& members : domains)
    for (const int src : members)
      for (const int dst : members)
        if (src != dst) phase.transfers.push_back({src, dst, 2 * call.bytes / kd});
  double intra_s = k > 1 ? 2 * max_edge_latency_s(phase.transfers, platform) : 0.0;
  std::vector<Transfer> inter;
  if (domains.size() > 1)
    for (size_t j = 0; j < k; ++j)
      for (size_t n = 0; n < domains.size(); ++n)
        inter.push_back({domains[n][j], domains[(n + 1) % domains.size()][j], call.bytes / kd});
  phase.latency_s = intra_s + 2 * max_edge_latency_s(inter, platform);
  phase.transfers.insert(phase.transfers.end(), inter.begin(), inter.end());
  return CommPlan{{std::move(phase)}};
}

}  // namespace trainsim::engine
