#pragma once
// Observing a step simulation: the engine reports what each simulated GPU does, as
// read-only records; a trace writer is one observer (../shared/STYLE.md: the engine does
// not know HDF5).

#include <string>

namespace trainsim {

/// What a GPU stream was busy with.
enum class ActivityStream { compute, tp_comm, pp_comm, dp_comm, data };

struct ActivityRecord {
  int rank = 0;     ///< global rank of the simulated GPU (TP index 0 of its group)
  int stage = 0;    ///< pipeline stage
  int replica = 0;  ///< data/context-parallel replica (0 when symmetry is reduced)
  ActivityStream stream = ActivityStream::compute;
  std::string kind;     ///< forward, backward, weight, recompute, optimizer, tp_<op>, pp_send, dp_allreduce, data_wait
  int chunk = -1;       ///< model chunk (virtual stage) index, -1 when none
  int microbatch = -1;  ///< -1 when none
  int step = 0;
  double start_s = 0;
  double end_s = 0;
  double bytes = 0;  ///< communication bytes (per GPU), 0 for compute
  double flops = 0;  ///< executed FLOPs, 0 for communication
};

class StepObserver {
 public:
  virtual ~StepObserver() = default;
  /// Called when an activity has finished, in simulated-time order per GPU.
  virtual void on_activity(const ActivityRecord& record) = 0;
  /// Called when simulated step `step` has ended on every stage.
  virtual void on_step(int step, double start_s, double end_s) = 0;
};

}  // namespace trainsim
