#pragma once
// The interface every collective algorithm implements (one algorithm per file,
// ../shared/STYLE.md); which one runs is decided in algorithm_selection.hpp only.

#include <string>
#include <vector>

#include "sim/engine/collective.hpp"
#include "sim/engine/comm_plan.hpp"
#include "sim/engine/platform.hpp"

namespace trainsim::engine {

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;
  virtual CollectiveAlgo id() const = 0;
  virtual bool supports(CollectiveOp op) const = 0;
  /// The transfers of `call` (its op is supported, it has >= 2 GPUs) on `platform`.
  virtual CommPlan plan(const CollectiveCall& call, const Platform& platform) const = 0;
};

/// `gpus` grouped by NVLink domain (a node on DGX/HGX), in order of first appearance; each
/// group keeps rank order. The algorithms treat a domain as NCCL treats a node: NCCL's
/// multi-node NVLink support (MNNVL, NCCL 2.20+) builds its rings and trees over a GB200
/// NVL72 rack's 72 GPUs as over one node's, NVLink inside and NICs between racks.
std::vector<std::vector<int>> gpus_by_node(const std::vector<int>& gpus, const Platform& platform);

/// The largest message latency among `transfers`' edges, in seconds.
double max_edge_latency_s(const std::vector<Transfer>& transfers, const Platform& platform);

}  // namespace trainsim::engine
