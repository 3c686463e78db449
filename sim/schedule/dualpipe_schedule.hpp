#pragma once

#include "sim/schedule/pipeline_schedule.hpp"

namespace trainsim {

/// DualPipe (DeepSeek-V3 technical report, arXiv 2412.19437, §3.2.1, Fig. 5 and Table 2): a
/// bidirectional pipeline. Rank i holds two chunks, stage i of the forward direction (chunk 0)
/// and stage pp - 1 - i of the reverse one (chunk 1), so parameters twice over; micro-batches
/// 0..m/2-1 enter at rank 0 and run through the chunks 0, micro-batches m/2..m-1 enter at rank
/// pp - 1 and run through the chunks 1. Each rank plays the eight phases of
/// deepseek-ai/DualPipe dualpipe/dualpipe.py @ 3da1bbe (DualPipe.step): forwards of its first
/// direction, forwards of both, backwards split from their weight gradients (zero bubble),
/// the steady state of forward-backward pairs of the two directions, then the drain, where
/// the later backwards leave their weight gradients to fill the waits. A pair runs as one
/// unit, each pass's all-to-alls beside the other's compute, where the actor's `pairable`
/// holds (parallel.moe_a2a_overlap: a module with overlapped_forward_backward); otherwise the
/// forward then the backward, as dualpipe.py runs modules without it. Needs an even pp and
/// an even m >= 2 pp (DualPipe.step's asserts; the scenario refuses others).
class DualPipeSchedule final : public PipelineSchedule {
 public:
  std::vector<PipelineTask> order(int stage, int pp, int microbatches, int virtual_stages) const override;
  std::vector<ScheduledUnit> units(int stage, int pp, int microbatches, int virtual_stages,
                                   const std::function<bool(const PipelineTask&)>& pairable) const override;
  bool splits_weight_gradients() const override { return true; }
  /// dualpipe.py computes weight gradients inside the backward unless it runs with
  /// WeightGradStore enabled (enable_zb): those backwards are `weight_apart`.
  bool runs_weight_with(const PipelineTask& t) const override {
    return t.pass == TaskPass::backward && !t.weight_apart;
  }
  int path_position(int stage, int chunk, int pp) const override { return chunk == 0 ? stage : pp - 1 - stage; }
  int stage_at(int position, int chunk, int pp) const override { return chunk == 0 ? position : pp - 1 - position; }
  int path_length(int pp, int /*virtual_stages*/) const override { return pp; }
  int last_microbatch(int chunk, int microbatches) const override {
    return chunk == 0 ? microbatches / 2 - 1 : microbatches - 1;
  }
  /// Each end rank feeds its half of the micro-batches from a loader of its own.
  int feed_index(int step, int microbatch, int microbatches) const override {
    const int half = microbatches / 2;
    return step * half + microbatch % half;
  }
  std::string name() const override { return "dualpipe"; }
};

}  // namespace trainsim
