#pragma once
// A stage actor's layer collectives (stage_actor.hpp): each layer's TP collectives on the
// tensor-parallel group, MoE's all-to-alls on the expert-parallel group, the folded experts'
// gathers on the expert-tensor-parallel group, the context-parallel K/V exchanges on the CP
// group; blocking, or beside the GEMMs they overlap. With symmetry reduced each distinct one
// is simulated once and reused from the world's duration cache. A group that holds several
// stage actors' ranks runs each of its collectives once for all of them (ReplicaRendezvous).

#include <array>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/engine/collective.hpp"
#include "sim/engine/comm_activity.hpp"
#include "sim/step/stage_context.hpp"
#include "sim/step/stage_traffic.hpp"

namespace trainsim {

/// The groups of a layer's collectives that may hold several stage actors' ranks: a layer's
/// MoE all-to-alls, the folded experts' gathers and the CP exchanges (a TP group is one
/// actor's: its rank 0 plays it).
enum class LayerGroup { ep, etp, cp };
inline constexpr int k_layer_groups = 3;

// A pass's per-layer collectives (GroupCollective::layers), played between its layers'
// compute as Megatron-LM issues them: each layer's TP all-reduces after its attention and
// its MLP (Narayanan et al. SC21 §3.2, Fig. 5's g operators; with sequence parallelism an
// all-gather and a reduce-scatter each, Korthikanti et al. §4.2.2), MoE's dispatch and
// combine around its experts. One layer's sequence takes each collective's share in turn;
// the slots are spread evenly over the pass's compute, each after its share of it.
struct LayerSlots {
  const PipelineTask* task = nullptr;
  std::vector<const GroupCollective*> sequence;  ///< the pass's layer collectives, in order
  size_t next = 0;                               ///< the next slot to play
  double slot_s = 0;                             ///< compute seconds before each slot
  double until_next = 0;                         ///< compute seconds left before the next

  bool pending() const { return next < sequence.size(); }
};

/// The layer collectives of `pass` as a pass plays them, its EP ones only `with_ep`: layer by
/// layer, each of its collectives' count / layers in turn (layer l has those whose `layers`
/// exceed l); what does not divide is played after the compute. Nothing if it has none.
std::optional<LayerSlots> layer_slots(const PassCost& pass, const PipelineTask& t, bool with_ep);

/// The duration cache's key of a layer collective (StepWorld::duration_cache).
using DurationKey = std::tuple<int, int, double, int>;

class LayerCollectives {
 public:
  LayerCollectives(StageContext& s, const StageTraffic& traffic);

  /// A new step: its group collectives are numbered from 0.
  void new_step() { group_index_ = {}; }

  /// `times` of collective `c` of task `t`, blocking or beside the compute it overlaps
  /// (tp_comm_overlap). Returns the seconds of compute run beside them (part of the pass's).
  double run(const GroupCollective& c, int times, const PipelineTask& t);
  /// Accounts the bytes of `c`, run from `start` to `end` with `beside` seconds of compute
  /// beside it, and reports it.
  void record(const GroupCollective& c, const PipelineTask& t, double start, double end, double beside);
  /// The duration cache's key of `c`. Near a slow NIC this stage's collectives time apart from
  /// the others' (replica_classes.hpp).
  DurationKey duration_key(const GroupCollective& c) const;
  /// The engine's call of `c` on this GPU's group.
  engine::CollectiveCall call(const GroupCollective& c) const;

  /// The key of this step's next collective on this GPU's `group`, and how many stage actors
  /// take part in it.
  std::pair<ReplicaRendezvous::Key, int> next_group_rendezvous(LayerGroup group);
  /// Starts `call` on this GPU's `group` once for the stage actors it holds, when the last of
  /// them asks. Returns it once started.
  engine::CommActivity start_group_collective(LayerGroup group, const engine::CollectiveCall& call);
  /// The stage actors whose ranks are in this GPU's `group`.
  int actors_in(LayerGroup group) const { return group_actors_[static_cast<size_t>(group)]; }

  /// Starts `op` of `bytes` on this GPU's context-parallel group and accounts its bytes.
  engine::CommActivity start_cp(engine::CollectiveOp op, double bytes);
  /// A collective on the CP group that the GPU waits for: its whole time is cp_comm.
  void exposed_cp(const PipelineTask& t, engine::CollectiveOp op, double bytes, const char* name);

  /// How much slower compute runs beside a pair's EP collective (ep_overlap_slowdown).
  double ep_overlap_slowdown() const { return ep_overlap_slowdown_; }
  /// Whether this GPU's expert group spans NVLink domains.
  bool ep_across_domains() const { return ep_across_domains_; }

 private:
  double overlapped_gemm_s(const GroupCollective& c) const;
  const std::vector<int>& group(const GroupCollective& c) const;

  StageContext& s_;
  const StageTraffic& traffic_;
  /// Compute time over a uniform GPU's: slow GPUs this stage's layers wait on.
  double slowdown_ = 1.0;
  /// Whether this stage's TP collectives reuse the durations of those timed before: with
  /// symmetry reduced, or when its TP group's links carry nothing else (StepWorld::isolated_tp).
  bool tp_reuse_ = false;
  std::vector<int> tp_group_;
  std::vector<int> ep_group_;
  std::vector<int> etp_group_;
  std::vector<int> cp_group_;
  /// Per LayerGroup: the stage actors whose ranks are in this GPU's group (under --full
  /// several), and the collectives asked for on it so far this step.
  std::array<int, k_layer_groups> group_actors_{};
  std::array<int, k_layer_groups> group_index_{};
  /// The token all-to-all's bytes to an expert-parallel peer in another NVLink domain over
  /// those to one in this GPU's (models/moe_dispatch.hpp, remote_peer_share).
  double ep_remote_share_ = 1.0;
  /// The dispatcher kernel's rate on the token all-to-all (dispatcher_rates.hpp); 0: NCCL's.
  double ep_kernel_Bps_ = 0.0;
  /// Of the bus bytes a pairwise all-to-all of its size sends, the share it sends with that.
  double ep_sent_share_ = 1.0;
  double ep_overlap_slowdown_ = 0;
  bool ep_across_domains_ = false;
};

}  // namespace trainsim
