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
  // The NVLS stage of every domain, as nvls_algorithm.cpp simulates it, at the NVLS-tree rate;
  // across domains, per head, along both trees: S/(2h) up and down each tree edge.
  const double per_pair = call.bytes * (1.0 + 1.0 / kd) * platform.nvlink_Bps() / platform.nvls_tree_Bps() / (kd - 1);
  const double tree_bytes = call.bytes / (2.0 * static_cast<double>(heads));
  // Every NVLS pair, and each head's two trees of count - 1 edges, both ways: reserved whole,
  // the plan is not copied while it grows (1.44 M transfers, 35 MB, at 131,072 GPUs).
  phase.transfers.reserve(domains.size() * k * (k - 1) + heads * 2 * static_cast<size_t>(count - 1) * 2);
  for (const auto& members : domains)
    for (const int src : members)
      for (const int dst : members)
        if (src != dst) phase.transfers.push_back({src, dst, per_pair});
  // Transfer order shapes the runner's parallel tasks (plan_runner.hpp). After the NVLS stages
  // (their own tasks: mixed with NIC legs, a task moves at its slowest leg's pace), as the
  // double binary tree's edges (double_binary_tree_algorithm.cpp): first, block by block of
  // k_block domains, every head's tree edges inside the block; then the edges between blocks.
  // The block tasks are alike and SimGrid re-solves rarely: 1 GiB on 131,072 DGX H100 GPUs
  // simulates in a third of the CPU and 40 % of the memory of the edges listed rail by rail
  // in tree order, where tasks spanning two rails made the 8 rails one component.
  double edge_latency_s = 0;
  const auto edge = [&](int d, size_t j, int parent) {
    const int a = domains[static_cast<size_t>(d)][j];
    const int b = domains[static_cast<size_t>(parent)][j];
    phase.transfers.push_back({a, b, tree_bytes});
    phase.transfers.push_back({b, a, tree_bytes});
    edge_latency_s = std::max({edge_latency_s, platform.latency_s(a, b), platform.latency_s(b, a)});
  };
  if (platform.cluster().nodes_per_domain() == 1) {
    constexpr int k_block = 8;
    for (int pass = 0; pass < 2; ++pass)
      for (int d = 0; d < count; ++d)
        for (size_t j = 0; j < heads; ++j)
          for (int tree = 0; tree < 2; ++tree) {
            const int parent = double_binary_tree_parent(d, count, tree);
            if (parent >= 0 && (parent / k_block == d / k_block) == (pass == 0)) edge(d, j, parent);
          }
  } else {
    // Domains of several nodes (NVL72 racks) keep the edges head by head in tree order: there the
    // blocks moved the 8 GiB all-reduce on 20 racks with 100 Gb/s NICs by -23 %
    // (NvlinkDomain.AllReduceAcrossRacksIsBoundedByTheNics).
    for (size_t j = 0; j < heads; ++j)
      for (int tree = 0; tree < 2; ++tree)
        for (int d = 0; d < count; ++d) {
          const int parent = double_binary_tree_parent(d, count, tree);
          if (parent >= 0) edge(d, j, parent);
        }
  }
  phase.latency_s = nvls_latency_s(static_cast<int>(k), platform) + tree_passes(count) * edge_latency_s;
  return CommPlan{{std::move(phase)}};
}

}  // namespace trainsim::engine
