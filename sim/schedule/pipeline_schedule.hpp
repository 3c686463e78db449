#pragma once
// A pipeline schedule: the order in which each stage runs its forward and backward tasks.
// One schedule per file; make_pipeline_schedule is the one place that picks it.

#include <memory>
#include <string>
#include <vector>

#include "models/parallel_spec.hpp"
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
