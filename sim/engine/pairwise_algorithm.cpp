#include "sim/engine/pairwise_algorithm.hpp"

#include <algorithm>

namespace trainsim::engine {

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
  // One latency per peer: NCCL's all-to-all is n - 1 send/receive pairs, each a p2p
  // operation paying its own hop latency (a stated assumption: NCCL groups them, but every
  // peer's transfer is its own protocol exchange).
  phase.latency_s = static_cast<double>(n - 1) * max_edge_latency_s(phase.transfers, platform);
  return CommPlan{{std::move(phase)}};
}

}  // namespace trainsim::engine
