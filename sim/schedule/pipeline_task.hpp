#pragma once
// One unit of pipeline work on one stage: a micro-batch through one model chunk, in one pass.

namespace trainsim {

/// forward; backward (input gradients, and weight gradients unless the schedule splits them
/// off); weight (the deferred weight gradients of a zero-bubble schedule).
enum class TaskPass { forward, backward, weight };

struct PipelineTask {
  int microbatch = 0;
  int chunk = 0;  ///< the stage's model chunk, 0..virtual_stages-1 (global chunk = chunk * pp + stage)
  TaskPass pass = TaskPass::forward;
  /// A backward of a schedule that splits weight gradients per task (PipelineSchedule::
  /// runs_weight_with): its weight gradients run as a `weight` task of their own, later.
  bool weight_apart = false;
  friend bool operator==(const PipelineTask&, const PipelineTask&) = default;
};

}  // namespace trainsim
