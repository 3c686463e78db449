#include "sim/engine/nvls_tree_algorithm.hpp"

#include <algorithm>
#include <bit>

#include "sim/core/error.hpp"
#include "sim/engine/nvls_algorithm.hpp"

namespace trainsim::engine {

namespace {

// The tree's network passes: up and down, ceil(log2(D)) hops each (at least one for 2 domains).
double tree_passes(int domains) {
  const auto hops = std::bit_width(static_cast<unsigned>(std::max(domains, 2) - 1));
  return 2.0 * static_cast<double>(hops);
}

}  // namespace

bool nvls_tree_possible(const std::vector<int>& gpus, const Platform& platform) {
  if (!(platform.nvls_Bps() > 0) || gpus.empty()) return false;
  const auto domains = gpus_by_node(gpus, platform);
  return std::all_of(domains.begin(), domains.end(),
                     [&](const auto& d) { return d.size() == domains.front().size(); });
}

double nvls_tree_all_reduce_s(double bytes, int per_domain, int domains, const Platform& platform) {
  const double k = per_domain;
  const double d = domains;
  const double nvls_s = per_domain > 1 ? bytes * (1.0 + 1.0 / k) / platform.nvls_Bps() : 0.0;
  const double nic_s = 2 * (d - 1) / d * bytes / k / platform.nic_Bps();
  const ClusterSpec& c = platform.cluster();
  const double hop_s = c.fabric == Fabric::ideal ? 0.0 : c.nic_latency_s + c.switch_latency_s;
  return k_nvls_latency_s + tree_passes(domains) * hop_s + std::max(nvls_s, nic_s);
}

CommPlan NvlsTreeAlgorithm::plan(const CollectiveCall& call, const Platform& platform) const {
  if (!nvls_tree_possible(call.gpus, platform))
    throw InputError("", "--algo", "nvls-tree",
                     "needs NVLink domains whose switches reduce (H100, H200, Blackwell), each holding the same "
                     "number of the collective's GPUs");
  const auto domains = gpus_by_node(call.gpus, platform);
  if (domains.size() == 1) return NvlsAlgorithm().plan(call, platform);
  const size_t k = domains.front().size();
  const double kd = static_cast<double>(k);
  const double dd = static_cast<double>(domains.size());
  CommPhase phase;
  if (k > 1) {
    // The NVLS stage of every domain, as nvls_algorithm.cpp simulates it.
    const double per_pair = call.bytes * (1.0 + 1.0 / kd) * platform.nvlink_Bps() / platform.nvls_Bps() / (kd - 1);
    for (const auto& members : domains)
      for (const int src : members)
        for (const int dst : members)
          if (src != dst) phase.transfers.push_back({src, dst, per_pair});
  }
  // Across domains, per GPU position, on its slice.
  std::vector<Transfer> inter;
  for (size_t j = 0; j < k; ++j)
    for (size_t n = 0; n < domains.size(); ++n)
      inter.push_back({domains[n][j], domains[(n + 1) % domains.size()][j], 2 * (dd - 1) / dd * call.bytes / kd});
  phase.latency_s = k_nvls_latency_s + tree_passes(static_cast<int>(domains.size())) * max_edge_latency_s(inter, platform);
  phase.transfers.insert(phase.transfers.end(), inter.begin(), inter.end());
  return CommPlan{{std::move(phase)}};
}

}  // namespace trainsim::engine
