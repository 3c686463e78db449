#pragma once
// Observing a step simulation: the engine reports what each simulated GPU does, as
// read-only records; a trace writer is one observer (../shared/STYLE.md: the engine does
// not know HDF5).

#include <string>
#include <vector>

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

/// One sample of one link's utilization (the busiest links), or of a link class's mean
/// (`link` is then "class:<class>").
struct LinkSample {
  std::string link;        ///< SimGrid link name (e.g. n3.nic5_UP, leaf2-uplink_DOWN, nvlink7_UP)
  std::string link_class;  ///< nvlink, nic, leaf, spine
  double time_s = 0;       ///< simulated seconds
  double utilization = 0;  ///< used bandwidth over the link's bandwidth, 0..1
};

class StepObserver {
 public:
  virtual ~StepObserver() = default;
  /// True to have links sampled over time (it costs simulation time).
  virtual bool wants_link_samples() const { return false; }
  /// Called once, after the simulation, with the link samples in time order per link.
  virtual void on_link_samples(const std::vector<LinkSample>& /*samples*/) {}
  /// Called when an activity has finished, in simulated-time order per GPU.
  virtual void on_activity(const ActivityRecord& record) = 0;
  /// Called when simulated step `step` has ended on every stage.
  virtual void on_step(int step, double start_s, double end_s) = 0;
};

}  // namespace trainsim
