#pragma once
// A stage actor's compute (stage_actor.hpp): `seconds` of a pass's kernels, slowed by a slow
// GPU's slowdown and, while a communication of its GPU runs beside them, by
// training.overlap_slowdown (a pair's EP collective: its piece's, set_pair_slowdown); the pass's layer
// collectives played where their slots fall in it (layer_collectives.hpp); attention with
// its context-parallel K/V exchange; and the compute records the step's observer sees.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/comm_activity.hpp"
#include "sim/step/layer_collectives.hpp"
#include "sim/step/stage_context.hpp"
#include "sim/step/stage_traffic.hpp"

namespace trainsim {

class StageCompute {
 public:
  StageCompute(StageContext& s, LayerCollectives& layers, const StageTraffic& traffic);

  /// `seconds` of a pass's compute, the layers' collectives played where their slots fall in
  /// it. Returns the compute time, the GEMMs run beside overlapped collectives included, the
  /// collectives' own time not.
  double compute(double seconds);

  // A record of compute being run: from its start to the end of the last compute in it, with
  // `rate` x the compute seconds it holds. Closed where a collective interrupts the compute
  // (a layer's TP collectives, a ZeRO-3 gather waited for), so that the trace shows each
  // where it ran.
  void open_record(const char* kind, const PipelineTask& t, WorkRate rate);
  void close_record();

  /// The layer collectives of `pass` (all of them), to play inside its compute.
  /// Beside NCCL's collectives the pass's compute then runs at the pass's own slowdown
  /// (PassCost::nccl_extra_s, nccl_overlap.hpp) until finish_layer_slots.
  void start_layer_slots(const PassCost& pass, const PipelineTask& t);
  /// After the pass's compute: the slots its rounding left, the collectives that do not
  /// divide by their layers' count, and those once per pass (embedding, output).
  double finish_layer_slots(const PassCost& pass, const PipelineTask& t);
  /// Whether a slot of the running layer collectives is left to play.
  bool slot_pending() const { return slots_ && slots_->pending(); }
  /// Plays the next slot's collective; the open compute record is reported up to it and
  /// goes on after it. Returns the compute run beside it.
  double play_layer_slot();
  /// Trades the running layer collectives for `other` (a pair's passes play theirs in turn).
  void swap_layer_slots(std::optional<LayerSlots>& other) { std::swap(slots_, other); }

  // Communication run beside the compute, slowing it, and what to call when one ends (a
  // pair's communication stream: stage_pair.hpp).
  void add_beside(const engine::CommActivity& a) { beside_.push_back(a); }
  void clear_beside() { beside_.clear(); }
  void on_beside_done(std::function<void()> done) { beside_done_ = std::move(done); }
  /// How much slower the compute runs beside a pair's collective, a fraction (stage_pair.hpp
  /// sets it per piece; ep_overlap_cost.hpp).
  void set_pair_slowdown(double fraction) { pair_slowdown_ = fraction; }

  /// The attention kernels of a pass under context parallelism, `share` of them, with the
  /// K/V exchange the scenario's cp_algo makes. Called with a record open; leaves one open.
  double attention_with_cp(const char* kind, const PipelineTask& t, const PassCost& pass, WorkRate rate,
                           double share = 1.0);

 private:
  struct ComputeRecord {
    std::string kind;
    const PipelineTask* task = nullptr;
    double start_s = 0;
    double end_s = 0;
    WorkRate rate;
    double seconds = 0;  // compute held, unslowed
  };

  void observe_record();
  double with_ring_exchange(const PipelineTask& t, const PassCost& pass, double share);
  const engine::CommActivity* running_beside() const;
  double compute_slowed(double seconds);

  StageContext& s_;
  LayerCollectives& layers_;
  const StageTraffic& traffic_;
  /// Compute time over a uniform GPU's: slow GPUs this stage's layers wait on (replica_classes.hpp).
  double slowdown_ = 1.0;
  /// Compute beside NCCL's gradient and parameter collectives runs 1 + this as long (nccl_overlap.hpp):
  /// the running pass's, else the scenario's flat one.
  double nccl_slowdown_ = 0.0;
  double nccl_flat_slowdown_ = 0.0;
  std::vector<engine::CommActivity> beside_;  ///< other communication running beside this GPU's compute
  std::function<void()> beside_done_;         ///< called when a communication beside the compute ends
  double pair_slowdown_ = 0;                  ///< beside a pair's collective (set_pair_slowdown)
  std::optional<LayerSlots> slots_;           ///< the running pass's per-layer collectives, if any
  std::optional<ComputeRecord> record_;       ///< the compute record open, if any
};

}  // namespace trainsim
