#pragma once
// A stage actor's ZeRO parameter gathers (stage_actor.hpp): ZeRO-3's and FSDP's unit by unit
// before each unit computes (compute_by_units), ZeRO-1/2's updated parameters after the
// optimizer, or with parallel.overlap_param_gather beside the next step's first forward pass,
// bucket by bucket where a stage's weights fill several buckets. Every simulated replica asks
// for each gather; it starts when the last one does (ReplicaRendezvous).

#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "sim/engine/comm_activity.hpp"
#include "sim/step/gradient_plans.hpp"
#include "sim/step/gradient_reduction.hpp"
#include "sim/step/stage_compute.hpp"
#include "sim/step/stage_context.hpp"

namespace trainsim {

class ParameterGathers {
 public:
  ParameterGathers(StageContext& s, StageCompute& compute, GradientReduction& reduction)
      : s_(s), compute_(compute), reduction_(reduction) {}

  /// A new step: with overlap_param_gather, asks for the first bucket's gather of the
  /// parameters the last update left.
  void start_step();
  /// Whether this step's first forward pass gathers its parameters bucket by bucket.
  bool gathers_by_bucket() const { return !gather_shares_.empty(); }
  /// The first forward pass of a step that gathers by bucket: before each bucket's part of
  /// `seconds` and of `attention` (where set), the wait for its gather (zero_comm) and the ask
  /// for the next one's. Called with a compute record open; leaves one open.
  double compute_with_gathers(const char* kind, const PipelineTask& t, double seconds, WorkRate rate,
                              const std::function<double(double)>& attention);
  /// ZeRO-3 / FSDP: `seconds` of a pass unit by unit, with `gather` each unit's parameters
  /// gathered before it computes, with `with_buckets` its gradients reduced as it ends.
  double compute_by_units(const char* kind, const PipelineTask& t, double seconds, bool with_buckets, WorkRate rate,
                          bool gather);
  /// After a forward pass: waits for the overlapped gathers it did not wait for.
  void finish_forward();
  /// After the update, ZeRO-1/2 all-gather the updated parameters (ZeRO-3 keeps them sharded).
  void gather_updated();

  /// The overlapped parameter gather while it runs (started, not done), if any.
  const engine::CommActivity* running() const;
  /// The first ZeRO-3 unit gather still in flight, if any.
  const engine::CommActivity* first_unit_running() const;
  /// A gather asked for that has not started (slower replicas have not asked), if any.
  std::optional<ReplicaRendezvous::Key> awaited_start() const;

 private:
  bool gathers_updated_parameters() const;
  void dispatch();
  void finish_overlapped();
  const engine::CommActivity* started() const;

  StageContext& s_;
  StageCompute& compute_;
  GradientReduction& reduction_;
  std::deque<ReplicaRendezvous::Key> unit_gathers_;     ///< ZeRO-3 unit gathers asked for, not yet waited for
  std::optional<ReplicaRendezvous::Key> param_gather_;  ///< overlap_param_gather: the bucket being gathered
  ReductionBucket gathering_;                           ///< what param_gather_ gathers
  std::deque<ReductionBucket> gather_buckets_;          ///< the buckets still to gather, in forward order
  std::vector<double> gather_shares_;                   ///< the first forward's parts, one per bucket (none: whole)
};

}  // namespace trainsim
