#include "sim/engine/nvls_tree_algorithm.hpp"

#include <algorithm>
#include <bit>

#include "sim/core/error.hpp"
#include "sim/engine/double_binary_tree_algorithm.hpp"
#include "sim/engine/nccl_latency.hpp"
#include "sim/engine/nvls_algorithm.hpp"

namespace trainsim::engine {

namespace {

constexpr int k_max_heads = 32;  // NCCL_MAX_NVLS_ARITY (src/include/device.h at 5067397c)

// The trees' network passes: up and down, ceil(log2(D)) hops each (at least one for 2 domains).
double tree_passes(int domains) {
  const auto hops = std::bit_width(static_cast<unsigned>(std::max(domains, 2) - 1));
  return 2.0 * static_cast<double>(hops);
}

}  // namespace

bool nvls_tree_possible(const std::vector<int>& gpus, const Platform& platform) {
  if (!(platform.nvls_tree_Bps() > 0) || gpus.empty()) return false;
  const auto domains = gpus_by_node(gpus, platform);
  return domains.front().size() >= 2 &&
         std::all_of(domains.begin(), domains.end(), [&](const auto& d) { return d.size() == domains.front().size(); });
}

int nvls_tree_heads(int per_domain, const Platform& platform) {
  return std::max(1, std::min({k_max_heads, per_domain, platform.nics_per_domain()}));
}

double nvls_tree_all_reduce_s(double bytes, int per_domain, int domains, const Platform& platform) {
  const double k = per_domain;
  const double h = nvls_tree_heads(per_domain, platform);
  const double nvls_s = bytes * (1.0 + 1.0 / k) / platform.nvls_tree_Bps();
  // NCCL's model: a head's NIC carries its slice S/h each way on 2 domains, twice that beyond
  // (tuning.cc, "Handle 2 node case of NVLSTree": the network bandwidth doubled for nNodes <= 2).
  const double nic_s = domains > 1 ? (domains == 2 ? 1.0 : 2.0) * bytes / h / platform.nic_Bps() : 0.0;
  const double depth = domains > 1 ? static_cast<double>(std::bit_width(static_cast<unsigned>(domains)) - 1) : 0.0;
  return nvls_latency_s(per_domain, platform) + 2 * depth * k_nccl_nvls_tree_net_hop_s + std::max(nvls_s, nic_s);
}

CommPlan NvlsTreeAlgorithm::plan(const CollectiveCall& call, const Platform& platform) const {
  if (!nvls_tree_possible(call.gpus, platform))
    throw InputError("", "--algo", "nvls-tree",
                     "needs NVLink domains whose switches reduce (H100, H200, Blackwell), each holding the same "
                     "number (at least 2) of the collective's GPUs");
  const auto domains = gpus_by_node(call.gpus, platform);
  if (domains.size() == 1) return NvlsAlgorithm().plan(call, platform);
  const size_t k = domains.front().size();
  const double kd = static_cast<double>(k);
  const int count = static_cast<int>(domains.size());
  const size_t heads = static_cast<size_t>(nvls_tree_heads(static_cast<int>(k), platform));
  CommPhase phase;
  // The NVLS stage of every domain, as nvls_algorithm.cpp simulates it, at the NVLS-tree rate.
  const double per_pair = call.bytes * (1.0 + 1.0 / kd) * platform.nvlink_Bps() / platform.nvls_tree_Bps() / (kd - 1);
  for (const auto& members : domains)
    for (const int src : members)
      for (const int dst : members)
        if (src != dst) phase.transfers.push_back({src, dst, per_pair});
  // Across domains, per head, along both trees: S/(2h) up and down each tree edge.
  const double tree_bytes = call.bytes / (2.0 * static_cast<double>(heads));
  std::vector<Transfer> inter;
  for (size_t j = 0; j < heads; ++j)
    for (int tree = 0; tree < 2; ++tree)
      for (int d = 0; d < count; ++d) {
        const int parent = double_binary_tree_parent(d, count, tree);
        if (parent < 0) continue;
        const int a = domains[static_cast<size_t>(d)][j];
        const int b = domains[static_cast<size_t>(parent)][j];
        inter.push_back({a, b, tree_bytes});
        inter.push_back({b, a, tree_bytes});
      }
  phase.latency_s =
      nvls_latency_s(static_cast<int>(k), platform) + tree_passes(count) * max_edge_latency_s(inter, platform);
  phase.transfers.insert(phase.transfers.end(), inter.begin(), inter.end());
  return CommPlan{{std::move(phase)}};
}

}  // namespace trainsim::engine
