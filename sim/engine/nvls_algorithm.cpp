#include "sim/engine/nvls_algorithm.hpp"

#include <utility>

#include "sim/core/error.hpp"
#include "sim/engine/domain_collective.hpp"
#include "sim/engine/nccl_latency.hpp"

namespace trainsim::engine {

bool nvls_possible(const std::vector<int>& gpus, const Platform& platform) {
  return platform.nvls_Bps() > 0 && !gpus.empty() && platform.in_one_domain(gpus);
}

double nvls_latency_s(int ranks, const Platform& platform) {
  const MeasuredCollective* m = measured_in_domain(CollectiveOp::all_reduce, platform);
  return m != nullptr ? measured_latency_s(CollectiveOp::all_reduce, *m, ranks) : k_nccl_nvls_latency_s;
}

double nvls_all_reduce_s(double bytes, int ranks, const Platform& platform) {
  return nvls_latency_s(ranks, platform) + bytes * (1.0 + 1.0 / ranks) / platform.nvls_Bps();
}

CommPlan NvlsAlgorithm::plan(const CollectiveCall& call, const Platform& platform) const {
  if (!nvls_possible(call.gpus, platform))
    throw InputError("", "--algo", "nvls",
                     "NVLink SHARP reduces inside one NVLink domain whose NVSwitches can (H100, H200, Blackwell): "
                     "every GPU of the collective must be in one such domain (a node, or an NVL72 rack)");
  const double n = static_cast<double>(call.gpus.size());
  // Each port carries (n - 1) x per direction; at the simulated NVLink rate that must take
  // S (1 + 1/n) / nvls_Bps().
  const double per_port = call.bytes * (1.0 + 1.0 / n) * platform.nvlink_Bps() / platform.nvls_Bps();
  const double per_pair = per_port / (n - 1);
  CommPhase phase;
  phase.transfers.reserve(call.gpus.size() * (call.gpus.size() - 1));
  for (const int src : call.gpus)
    for (const int dst : call.gpus)
      if (src != dst) phase.transfers.push_back({src, dst, per_pair});
  phase.latency_s = nvls_latency_s(static_cast<int>(call.gpus.size()), platform);
  return CommPlan{{std::move(phase)}};
}

}  // namespace trainsim::engine
