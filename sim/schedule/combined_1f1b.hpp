#pragma once
// Megatron-Core's combined 1F1B (parallel.moe_a2a_overlap; NVIDIA/Megatron-LM
// megatron/core/pipeline_parallel/combined_1f1b.py @ d98e8a64): in the steady state a stage
// runs one micro-batch's forward and another's backward as one unit, layer by layer, so that
// each one's MoE all-to-alls run beside the other's compute. Which tasks of a schedule's
// order run as such a pair.

#include <optional>
#include <vector>

#include "sim/schedule/pipeline_task.hpp"

namespace trainsim {

/// One unit of a stage's order: a task alone, or a forward and a backward run together.
struct ScheduledUnit {
  PipelineTask task;
  std::optional<PipelineTask> beside;  ///< the task of the other pass run with `task`

  friend bool operator==(const ScheduledUnit&, const ScheduledUnit&) = default;
};

/// `order` as units: each forward next to a backward (either first) of another micro-batch
/// (every backward of a micro-batch waits for all its forwards) forms a pair, taken from the front; `pairable(task)`
/// false keeps a task alone. The interleaved schedule's extra warm-up forward (ParallelSpec::extra_warmup_chunks) makes
/// its steady state forward-backward pairs; without pipelining the backward of micro-batch i pairs with the forward of
/// i + 1 (combined_1f1b_schedule_for_no_pipelining).
template <typename Pairable>
std::vector<ScheduledUnit> combined_units(const std::vector<PipelineTask>& order, Pairable pairable) {
  std::vector<ScheduledUnit> units;
  for (size_t i = 0; i < order.size(); ++i) {
    const PipelineTask& a = order[i];
    if (i + 1 < order.size()) {
      const PipelineTask& b = order[i + 1];
      const bool opposite = (a.pass == TaskPass::forward) != (b.pass == TaskPass::forward) &&
                            a.pass != TaskPass::weight && b.pass != TaskPass::weight;
      const bool independent = a.microbatch != b.microbatch;
      if (opposite && independent && pairable(a) && pairable(b)) {
        units.push_back({a, b});
        ++i;
        continue;
      }
    }
    units.push_back({a, std::nullopt});
  }
  return units;
}

}  // namespace trainsim
