#pragma once
// A stage actor's forward-backward pairs (parallel.moe_a2a_overlap; stage_actor.hpp): a
// forward and a backward of another micro-batch run as one unit, as Megatron-Core's combined
// 1F1B runs them, the compute stream playing the passes' pieces in turn while the
// communication stream plays their layers' expert-parallel collectives.

#include <array>
#include <optional>
#include <vector>

#include "sim/step/layer_collectives.hpp"
#include "sim/step/stage_compute.hpp"
#include "sim/step/stage_context.hpp"
#include "sim/step/stage_traffic.hpp"

namespace trainsim {

// One pass of a forward-backward pair (parallel.moe_a2a_overlap, StagePair::run): its compute
// pieces, and between piece i and piece i + 1 group i of its layers' expert-parallel
// collectives, which may start `held[i]` seconds before piece i ends (delayed weight
// gradients). The kernels Megatron-Core's moe_combine node runs beside its all-to-all run on
// the communication stream with it: `comm_before[i]` seconds of them before group i's
// collectives, `comm_after[i]` after (pair_chain).
struct PairChain {
  const PipelineTask* task = nullptr;
  const char* kind = "";
  const PassCost* pass = nullptr;
  std::vector<double> pieces;
  std::vector<double> held;
  /// Per piece, its seconds beside a collective over its seconds alone, with the expert group
  /// inside one NVLink domain [0] or across domains [1] (MoeLayerSplit's *_beside).
  std::vector<std::array<double, 2>> beside;
  /// Per piece, the mean rest of its kernel in progress (MoeLayerSplit::*_kernel_s).
  std::vector<double> kernel_s;
  std::vector<std::vector<const GroupCollective*>> groups;
  std::vector<double> comm_before, comm_after;  ///< per group: compute on the communication stream
  std::optional<LayerSlots> tp;                 ///< its TP collectives, played inside its pieces
  size_t leads_done = 0;                        ///< pieces whose part before `held` has run
  size_t groups_done = 0;
  double compute_s = 0;  ///< the time its pieces took
};

/// Whether `t` may run beside a task of the other pass; `reduces_after`: whether its
/// gradients are reduced as it produces them (gradient_reduction.hpp).
bool pairable(const ParallelSpec& parallel, bool reduces_after, const PipelineTask& t);

/// Pass `pass` of `t` cut into pieces and groups of collectives as a pair plays it.
PairChain pair_chain(const char* kind, const PipelineTask& t, const PassCost& pass, bool delay_wgrad_compute);

/// The combine node's kernels on the communication stream (PairChain::comm_before,
/// comm_after) share the GPU's SMs with the other pass's piece the compute stream runs when
/// they start: that piece is charged their seconds (`chains`: the backward's, then the
/// forward's, as StagePair::run takes them). A group with no piece of the other pass beside
/// it charges nothing (the GPU runs its kernels alone).
void share_comm_kernels(std::array<PairChain, 2>& chains);

class StagePair {
 public:
  StagePair(StageContext& s, StageCompute& compute, LayerCollectives& layers, const StageTraffic& traffic)
      : s_(s), compute_(compute), layers_(layers), traffic_(traffic) {}

  /// Plays `chains` (the backward's, then the forward's) on the two streams, first charging
  /// the combine node's kernels to the pieces beside them (share_comm_kernels); each chain's
  /// compute_s holds the time its pieces took, the compute stream's waits are ep_comm.
  void run(std::array<PairChain, 2>& chains);
  /// A pair's collective asked for that has not started, if any: its start starts the next.
  std::optional<ReplicaRendezvous::Key> awaited_start() const;

 private:
  StageContext& s_;
  StageCompute& compute_;
  LayerCollectives& layers_;
  const StageTraffic& traffic_;
  std::optional<ReplicaRendezvous::Key> asked_;  ///< a collective asked for, not started
};

}  // namespace trainsim
