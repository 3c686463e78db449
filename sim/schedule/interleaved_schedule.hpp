#pragma once

#include "sim/schedule/pipeline_schedule.hpp"

namespace trainsim {

/// Interleaved 1F1B (Narayanan et al. SC21 §2.2.2): each stage holds v model chunks; micro-
/// batches go through the chunks in groups of p, which cuts the bubble to (p-1)/(v m) of the
/// ideal time at v times the pipeline communication. Needs m a multiple of p. Warm-up and
/// the order of chunks follow Megatron-LM's implementation: stage i runs
/// (p - i - 1) * 2 + (v - 1) * p warm-up forwards (all m v of them when m = p).
class InterleavedSchedule final : public PipelineSchedule {
 public:
  std::vector<PipelineTask> order(int stage, int pp, int microbatches, int virtual_stages) const override;
  std::string name() const override { return "interleaved"; }
};

}  // namespace trainsim
