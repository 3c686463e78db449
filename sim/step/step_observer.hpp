#pragma once
// Observing a step simulation: the engine reports what each simulated GPU does, as
// read-only records; a trace writer is one observer (../shared/STYLE.md: the engine does
// not know HDF5).

#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/collective.hpp"
#include "sim/step/gradient_groups.hpp"

namespace trainsim {

/// What a GPU stream was busy with.
enum class ActivityStream { compute, tp_comm, pp_comm, dp_comm, data };

/// Which of the recording GPU's groups a collective ran on.
enum class ActivityGroup { tp, cp, ep, etp, gradient, expert_gradient };

/// One collective an activity consisted of, for observers that rewrite the step in another
/// form (sim/workload's Chakra export): described relative to the recording GPU, so that
/// each GPU it stands for (symmetry) finds its own group.
struct ActivityCollective {
  engine::CollectiveOp op = engine::CollectiveOp::all_reduce;
  ActivityGroup group = ActivityGroup::tp;
  GradientScope scope = GradientScope::whole;  ///< gradient groups only
  double bytes = 0;                            ///< the size nccl-tests reports (engine/collective.hpp)
  int phase = 0;  ///< runs after the activity's collectives of earlier phases (HSDP's second phase)
};

/// What a communication activity was, beyond its stream and kind.
struct ActivityComm {
  std::vector<ActivityCollective> collectives;  ///< empty for compute and pipeline transfers
  /// pp_transfer: the stage whose pass output arrived, and the transfer's number (the same
  /// for its sender; unique per step, micro-batch, model chunk and direction).
  int peer_stage = -1;
  std::int64_t tag = -1;
  /// Compute run beside the collective (the GEMMs overlapped TP communication pipelines with).
  double beside_s = 0;
};

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
  double bytes = 0;      ///< communication bytes (per GPU), 0 for compute
  double flops = 0;      ///< executed FLOPs, 0 for communication
  double hbm_bytes = 0;  ///< compute: HBM bytes its kernels read and write; 0 for the rest and where not modelled
  ActivityComm comm;
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
