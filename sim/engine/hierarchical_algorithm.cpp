#include "sim/engine/hierarchical_algorithm.hpp"

#include "sim/core/error.hpp"
#include "sim/engine/ring_algorithm.hpp"

namespace trainsim::engine {

CommPlan HierarchicalAlgorithm::plan(const CollectiveCall& call, const Platform& platform) const {
  const auto nodes = gpus_by_node(call.gpus, platform);
  if (nodes.size() == 1) return RingAlgorithm().plan(call, platform);
  const size_t k = nodes.front().size();
  for (const auto& n : nodes)
    if (n.size() != k)
      throw InputError("", "--algo", "hierarchical", "needs the same number of participating GPUs on every node");
  const double kd = static_cast<double>(k);
  const double nd = static_cast<double>(nodes.size());

  CommPhase intra;  // reduce-scatter, and identically the all-gather of phase 3
  if (k > 1) {
    for (const auto& members : nodes)
      for (size_t j = 0; j < k; ++j)
        intra.transfers.push_back({members[j], members[(j + 1) % k], (kd - 1) / kd * call.bytes});
    intra.latency_s = (kd - 1) * max_edge_latency_s(intra.transfers, platform);
  }
  CommPhase inter;
  for (size_t j = 0; j < k; ++j)
    for (size_t n = 0; n < nodes.size(); ++n)
      inter.transfers.push_back({nodes[n][j], nodes[(n + 1) % nodes.size()][j], 2 * (nd - 1) / nd * call.bytes / kd});
  inter.latency_s = 2 * (nd - 1) * max_edge_latency_s(inter.transfers, platform);

  CommPlan plan;
  if (k > 1) plan.phases.push_back(intra);
  plan.phases.push_back(std::move(inter));
  if (k > 1) plan.phases.push_back(std::move(intra));
  return plan;
}

}  // namespace trainsim::engine
