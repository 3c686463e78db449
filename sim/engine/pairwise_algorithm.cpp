#include "sim/engine/pairwise_algorithm.hpp"

#include <algorithm>
#include <numeric>

namespace trainsim::engine {

int nccl_all_to_all_waves(const std::vector<int>& per_domain) {
  int ranks = 0;
  for (const int k : per_domain) ranks += k;
  if (per_domain.size() <= 1) return std::max(1, (ranks + k_nccl_p2p_channels - 1) / k_nccl_p2p_channels);
  // ncclP2pSchedule's group size: 8, or its gcd with a domain's ranks where they do not divide.
  int group = k_nccl_p2p_per_batch;
  for (const int k : per_domain)
    if (k % group != 0 || k < group) group = std::gcd(group, k);
  // ncclP2pChannelBaseForRound: ceil(group / 8) bases per group of ranks.
  const int bases = ranks / group * ((group + k_nccl_p2p_per_batch - 1) / k_nccl_p2p_per_batch);
  return std::max(1, (bases + k_nccl_p2p_channels - 1) / k_nccl_p2p_channels);
}

double nccl_all_to_all_latency_s(int waves, double nvlink_hop_s, int network_peers, double network_hop_s) {
  return waves * nvlink_hop_s + network_peers * network_hop_s;
}

CommPlan PairwiseAlgorithm::plan(const CollectiveCall& call, const Platform& platform) const {
  constexpr size_t k_block = 64;
  const std::vector<int>& g = call.gpus;
  const size_t n = g.size();
  const double bytes = call.bytes / static_cast<double>(n);
  CommPhase phase;
  phase.transfers.reserve(n * (n - 1));
  for (size_t bi = 0; bi < n; bi += k_block)
    for (size_t bj = 0; bj < n; bj += k_block)
      for (size_t i = bi; i < std::min(n, bi + k_block); ++i)
        for (size_t j = bj; j < std::min(n, bj + k_block); ++j)
          if (i != j)
            phase.transfers.push_back(
                {g[i], g[j], platform.domain_of(g[i]) == platform.domain_of(g[j]) ? bytes : bytes * call.remote_share});
  // NCCL's batches of concurrent send/receive pairs, one wave after the other, and a network
  // hop for each peer the GPU's proxy serves (pairwise_algorithm.hpp).
  const auto domains = gpus_by_node(g, platform);
  std::vector<int> per_domain;
  size_t smallest = n;
  for (const auto& d : domains) {
    per_domain.push_back(static_cast<int>(d.size()));
    smallest = std::min(smallest, d.size());
  }
  double nvlink_s = 0;
  double network_s = 0;
  for (const Transfer& t : phase.transfers) {
    double& hop = platform.domain_of(t.src_gpu) == platform.domain_of(t.dst_gpu) ? nvlink_s : network_s;
    hop = std::max(hop, platform.latency_s(t.src_gpu, t.dst_gpu));
  }
  phase.latency_s = nccl_all_to_all_latency_s(nccl_all_to_all_waves(per_domain), nvlink_s,
                                              static_cast<int>(n - smallest), network_s);
  return CommPlan{{std::move(phase)}};
}

}  // namespace trainsim::engine
