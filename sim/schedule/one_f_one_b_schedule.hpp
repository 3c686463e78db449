#pragma once

#include "sim/schedule/pipeline_schedule.hpp"

namespace trainsim {

/// PipeDream-Flush / 1F1B (Narayanan et al. SC21 §2.2.1): stage i runs min(p - i - 1, m)
/// warm-up forwards, then alternates one forward and one backward, then drains the backwards.
class OneFOneBSchedule : public PipelineSchedule {
 public:
  std::vector<PipelineTask> order(int stage, int pp, int microbatches, int virtual_stages) const override;
  std::string name() const override { return "1f1b"; }
};

/// ZB-H1 (Qi et al. 2024, "Zero Bubble Pipeline Parallelism", §3.1): 1F1B's order of forwards
/// and input-gradient backwards, with each weight-gradient pass deferred to fill the time a
/// stage would otherwise wait; in-flight micro-batches stay at 1F1B's p.
class ZeroBubbleH1Schedule final : public OneFOneBSchedule {
 public:
  bool defers_weight_gradients() const override { return true; }
  std::string name() const override { return "zb-h1"; }
};

}  // namespace trainsim
