#pragma once
// A pipeline schedule: the order in which each stage runs its forward and backward tasks.
// One schedule per file; make_pipeline_schedule is the one place that picks it.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/parallel_spec.hpp"
#include "sim/schedule/combined_1f1b.hpp"
#include "sim/schedule/pipeline_task.hpp"

namespace trainsim {

class PipelineSchedule {
 public:
  virtual ~PipelineSchedule() = default;
  /// The forward and backward tasks of `stage` (0..pp-1) in execution order, for
  /// `microbatches` micro-batches and `virtual_stages` chunks per stage.
  virtual std::vector<PipelineTask> order(int stage, int pp, int microbatches, int virtual_stages) const = 0;
  /// True if backward tasks compute input gradients only and each (micro-batch, chunk) also
  /// has a `weight` task, run when the stage would otherwise wait (zero-bubble schedules).
  virtual bool defers_weight_gradients() const { return false; }
  /// True if the stage costs split each backward into input and weight gradients
  /// (ChunkCosts::weight): where the actor defers them, or where the order places them.
  virtual bool splits_weight_gradients() const { return defers_weight_gradients(); }
  /// A backward whose weight gradients run right after it, before its input gradients leave
  /// (a schedule that splits only some of its backwards: DualPipe).
  virtual bool runs_weight_with(const PipelineTask& /*t*/) const { return false; }
  /// `order` as units; a forward and a backward run as one where `pairable` holds for both
  /// (parallel.moe_a2a_overlap; combined_1f1b.hpp).
  virtual std::vector<ScheduledUnit> units(int stage, int pp, int microbatches, int virtual_stages,
                                           const std::function<bool(const PipelineTask&)>& pairable) const {
    return combined_units(order(stage, pp, microbatches, virtual_stages), pairable);
  }

  // Where a chunk's micro-batches go: each micro-batch passes through `path_length` chunks,
  // the one at `path_position` on each stage, fed at position 0.
  /// Position of `chunk` of `stage` on its micro-batches' path (Megatron-LM: chunk * pp + stage).
  virtual int path_position(int stage, int chunk, int pp) const { return chunk * pp + stage; }
  /// The stage that runs position `position` of the path of chunk `chunk`'s micro-batches.
  virtual int stage_at(int position, int /*chunk*/, int pp) const { return position % pp; }
  virtual int path_length(int pp, int virtual_stages) const { return pp * virtual_stages; }
  /// The last micro-batch through `chunk`: its backward completes the chunk's gradients.
  virtual int last_microbatch(int /*chunk*/, int microbatches) const { return microbatches - 1; }
  /// The data loader's number of micro-batch `microbatch` of step `step` at the stage that feeds it.
  virtual int feed_index(int step, int microbatch, int microbatches) const { return step * microbatches + microbatch; }
  virtual std::string name() const = 0;
};

/// `microbatch_group`: the interleaved schedule's N (0: pp); `extra_warmup`: its warm-up
/// forwards beyond Megatron-Core's usual count (ParallelSpec::extra_warmup_chunks). The other
/// schedules ignore both.
std::unique_ptr<PipelineSchedule> make_pipeline_schedule(Schedule schedule, int microbatch_group = 0,
                                                         int extra_warmup = 0);
/// The schedule `p` names.
std::unique_ptr<PipelineSchedule> make_pipeline_schedule(const ParallelSpec& p);

}  // namespace trainsim
