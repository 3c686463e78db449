#include "sim/engine/direct_algorithm.hpp"

namespace trainsim::engine {

CommPlan DirectAlgorithm::plan(const CollectiveCall& call, const Platform& platform) const {
  const std::vector<int>& g = call.gpus;
  CommPhase phase;
  for (size_t i = 0; i < g.size(); ++i) phase.transfers.push_back({g[i], g[(i + 1) % g.size()], call.bytes});
  phase.latency_s = max_edge_latency_s(phase.transfers, platform);
  return CommPlan{{std::move(phase)}};
}

}  // namespace trainsim::engine
