#pragma once
// What a collective algorithm produces: the bytes each pair of GPUs exchanges over the
// whole collective, in phases that run one after the other, plus the latency term.
//
// One aggregated transfer per algorithm edge instead of one message per step
// (../shared/DESIGN.md, "Engine notes": within 0.3% of the per-message simulation,
// contention included); the latency the per-step messages would pay is added separately.

#include <vector>

namespace trainsim::engine {

struct Transfer {
  int src_gpu = 0;
  int dst_gpu = 0;
  double bytes = 0;
};

struct CommPhase {
  std::vector<Transfer> transfers;
  /// Total latency of the phase's steps, in seconds: steps x the slowest edge's latency.
  double latency_s = 0;
};

struct CommPlan {
  std::vector<CommPhase> phases;  ///< run in order; a phase starts when the previous one ends
};

}  // namespace trainsim::engine
