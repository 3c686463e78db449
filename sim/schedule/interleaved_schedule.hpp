#pragma once

#include "sim/schedule/pipeline_schedule.hpp"

namespace trainsim {

/// Interleaved 1F1B (Narayanan et al. SC21 §2.2.2): each stage holds v model chunks; micro-
/// batches go through the chunks in groups of N (N = p in the paper), which cuts the bubble
/// to (p-1)/(v m) of the ideal time at v times the pipeline communication. Warm-up and the
/// order of chunks follow Megatron-Core's implementation (schedules.py, get_schedule_table):
/// stage i runs (p - i - 1) * 2 + (v - 1) * N warm-up forwards (at most all m v); groups take micro-batches N at a time, the last group the remainder. A group
/// smaller than p is Llama 3's flexible N (Llama 3 §3.3.2): fewer warm-up forwards, so fewer
/// activations in flight, and any micro-batch count.
class InterleavedSchedule final : public PipelineSchedule {
 public:
  /// `microbatch_group` is N; 0 means p. `extra_warmup`: forwards run in the warm-up beyond
  /// Megatron-Core's usual count (one with MoE all-to-all overlap).
  explicit InterleavedSchedule(int microbatch_group = 0, int extra_warmup = 0)
      : microbatch_group_(microbatch_group), extra_warmup_(extra_warmup) {}
  std::vector<PipelineTask> order(int stage, int pp, int microbatches, int virtual_stages) const override;
  std::string name() const override { return "interleaved"; }

 private:
  int microbatch_group_;
  int extra_warmup_;
};

}  // namespace trainsim
