#pragma once
// One pipeline stage of one simulated replica, as a SimGrid actor: it plays the schedule's
// order of passes step after step. Compute takes the stage's costs (stage_costs.hpp), slowed
// while a communication of its GPU runs beside it; its layers' TP and EP collectives play
// between its layers' compute; its outputs go to the next stage through the transfer board;
// its gradients are reduced (and with ZeRO its parameters gathered) on the gradient groups;
// its time goes to its GPU account, its activities to the step's observer.

#include <array>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/engine/collective.hpp"
#include "sim/engine/comm_activity.hpp"
#include "sim/schedule/pipeline_task.hpp"
#include "sim/step/data_loader.hpp"
#include "sim/step/gpu_account.hpp"
#include "sim/step/gradient_groups.hpp"
#include "sim/step/gradient_plans.hpp"
#include "sim/step/lazy_clock.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_observer.hpp"
#include "sim/step/step_world.hpp"
#include "sim/step/transfer_board.hpp"

namespace trainsim {

/// The groups of a layer's collectives that may hold several stage actors' ranks: a layer's
/// MoE all-to-alls, the folded experts' gathers and the CP exchanges (a TP group is one
/// actor's: its rank 0 plays it).
enum class LayerGroup { ep, etp, cp };
inline constexpr int k_layer_groups = 3;

class StageActor {
 public:
  /// Stage `stage` of the representative of world.simulated.classes[replica_class] (its TP
  /// rank 0), accounted in world.accounts[account].
  StageActor(StepWorld& world, int stage, int replica_class, int account);

  /// The actor's body: scenario.run.steps steps, each ended at world.step_end (a neighbour's:
  /// steps until its foreground job has played all of its).
  void operator()();

  /// A pass's work per second of its compute: its FLOPs and HBM bytes over its compute time.
  struct WorkRate {
    double flops_per_s = 0;
    double bytes_per_s = 0;
  };

 private:
  // A record of compute being run: from `start` to the end of the last compute in it, with
  // `rate` x the compute seconds it holds. Closed where a collective interrupts the
  // compute (a layer's TP collectives, a ZeRO-3 gather waited for), so that the trace shows
  // each where it ran.
  struct ComputeRecord {
    std::string kind;
    const PipelineTask* task = nullptr;
    double start_s = 0;
    double end_s = 0;
    WorkRate rate;
    double seconds = 0;  // compute held, unslowed
  };

  // A pass's per-layer collectives (GroupCollective::layers), played between its layers'
  // compute as Megatron-LM issues them: each layer's TP all-reduces after its attention and
  // its MLP (Narayanan et al. SC21 §3.2, Fig. 5's g operators; with sequence parallelism an
  // all-gather and a reduce-scatter each, Korthikanti et al. §4.2.2), MoE's dispatch and
  // combine around its experts. One layer's sequence takes each collective's share in turn;
  // the slots are spread evenly over the pass's compute, each after its share of it.
  struct LayerComm {
    const PipelineTask* task = nullptr;
    std::vector<const GroupCollective*> sequence;  ///< the pass's layer collectives, in order
    size_t next = 0;                               ///< the next slot to play
    double slot_s = 0;                             ///< compute seconds before each slot
    double until_next = 0;                         ///< compute seconds left before the next

    bool pending() const { return next < sequence.size(); }
  };

  // One pass of a forward-backward pair (parallel.moe_a2a_overlap, run_pair): its compute
  // pieces, and between piece i and piece i + 1 group i of its layers' expert-parallel
  // collectives, which may start `held[i]` seconds before piece i ends (delayed weight
  // gradients).
  struct PairChain {
    const PipelineTask* task = nullptr;
    const char* kind = "";
    const PassCost* pass = nullptr;
    std::vector<double> pieces;
    std::vector<double> held;
    std::vector<std::vector<const GroupCollective*>> groups;
    std::optional<LayerComm> tp;  ///< its TP collectives, played inside its pieces
    size_t leads_done = 0;        ///< pieces whose part before `held` has run
    size_t groups_done = 0;
    double compute_s = 0;  ///< the time its pieces took
  };

  GpuAccount& account();
  double host_beside_collectives(const char* kind, const PipelineTask& t, const PassCost& pass, double blocked_s);
  void observe(ActivityStream stream, std::string kind, const PipelineTask* t, double start, double end, double bytes,
               double flops, ActivityComm comm = {}, double hbm_bytes = 0);
  /// The collectives of a gradient-group collective as start_gradient_group_collective runs it.
  std::vector<ActivityCollective> group_collectives(engine::CollectiveOp op, double bytes, double expert_bytes,
                                                    GradientScope scope) const;

  // Compute: a pass's, with the communication that runs inside it.
  double compute_pass(const char* kind, const PipelineTask& t, const PassCost& pass, bool with_buckets);
  double compute_attention_with_cp(const char* kind, const PipelineTask& t, const PassCost& pass, WorkRate rate,
                                   double share = 1.0);
  engine::CommActivity start_cp_collective(engine::CollectiveOp op, double bytes);
  void exposed_cp_collective(const PipelineTask& t, engine::CollectiveOp op, double bytes, const char* name);
  void open_record(const char* kind, const PipelineTask& t, WorkRate rate);
  void observe_record();
  void close_record();
  double compute_by_units(const char* kind, const PipelineTask& t, double seconds, bool with_buckets, WorkRate rate,
                          bool gather);
  double compute_with_ring_exchange(const PipelineTask& t, const PassCost& pass, double share);
  const engine::CommActivity* running_beside() const;
  double compute_slowed(double seconds);
  double compute(double seconds);

  // The gradient (dp x cp) groups' collectives.
  static double bus_bytes(engine::CollectiveOp op, double bytes, int ranks);
  /// The ranks of this GPU's dense (or, with `experts`, expert) gradient group in `scope`.
  int gradient_group_size(GradientScope scope = GradientScope::whole, bool experts = false) const;
  GradientScope gather_scope() const;
  GradientGroups gradient_groups() const;
  engine::CommActivity start_gradient_plan(const GradientPlanKey& key, const std::string& name,
                                           engine::QueuedAfter after = {});
  engine::CommActivity start_gradient_group_collective(engine::CollectiveOp op, double bytes, const std::string& name,
                                                       double expert_bytes = 0,
                                                       GradientScope scope = GradientScope::whole);

  // The pipeline: which pass's output a pass takes, and where its own goes.
  int chunks() const;
  int global_chunk(const PipelineTask& t) const;
  const ChunkCosts& chunk_costs(const PipelineTask& t) const;
  std::optional<TaskKey> input_of(const PipelineTask& t) const;
  /// A pipeline transfer's number, unique in the run (ActivityComm::tag).
  std::int64_t transfer_tag(const TaskKey& key) const;
  bool inputs_ready(const PipelineTask& t) const;
  void wait_inputs(const PipelineTask& t);
  void wait_data(const PipelineTask& t);
  void send_output(const PipelineTask& t);

  // The layers' TP, EP and expert-TP collectives.
  void start_layer_comm(const PassCost& pass, const PipelineTask& t);
  std::optional<LayerComm> layer_comm(const PassCost& pass, const PipelineTask& t, bool with_ep) const;
  double play_layer_slot();
  double finish_layer_comm(const PassCost& pass, const PipelineTask& t);
  double overlapped_gemm_s(const GroupCollective& c) const;
  double run_collective(const GroupCollective& c, int times, const PipelineTask& t);
  std::tuple<int, int, double, int> duration_key(const GroupCollective& c) const;
  const std::vector<int>& layer_group(const GroupCollective& c) const;
  engine::CollectiveCall layer_call(const GroupCollective& c) const;
  void record_layer_collective(const GroupCollective& c, const PipelineTask& t, double start, double end,
                               double beside);

  // Passes.
  void add_flops(const PassCost& pass, bool recomputed);
  double run_pass(const char* kind, const PipelineTask& t, const PassCost& pass, bool with_buckets);
  void run_task(const PipelineTask& t);
  void run_weight(const PipelineTask& t);
  void wait_offload(const PipelineTask& t, const PassCost& pass);
  void forward_done(const PipelineTask& t, const PassCost& pass);

  // MoE all-to-all overlap (Megatron-Core's combined 1F1B).
  bool pairable(const PipelineTask& t) const;
  PairChain pair_chain(const char* kind, const PipelineTask& t, const PassCost& pass) const;
  void run_pair(const PipelineTask& forward, const PipelineTask& backward);

  // Gradient reductions, ZeRO's parameter gathers and the optimizer.
  bool reduces_after(const PipelineTask& t) const;
  ReplicaRendezvous::Key next_rendezvous();
  /// The key of this step's next collective on this GPU's `group` (its EP, expert-TP or CP
  /// group), and how many stage actors take part in it.
  std::pair<ReplicaRendezvous::Key, int> next_group_rendezvous(LayerGroup group);
  engine::CommActivity start_group_collective(LayerGroup group, const engine::CollectiveCall& call);
  std::optional<ReplicaRendezvous::Key> awaited_start() const;
  double wait_all_started(const std::vector<ReplicaRendezvous::Key>& keys);
  double compute_with_buckets(const PipelineTask& t, double seconds, double share,
                              const std::function<double(double)>& attention = {});
  void start_reduction(double dense_bytes, double expert_bytes, bool last);
  bool parameter_gather_running() const;
  bool gradient_traffic_running() const;
  const engine::CommActivity* gradient_traffic_in_flight() const;
  bool gathers_updated_parameters() const;
  void start_overlapped_parameter_gather();
  void dispatch_parameter_gather();
  void finish_overlapped_parameter_gather();
  const engine::CommActivity* parameter_gather() const;
  double compute_with_gathers(const char* kind, const PipelineTask& t, double seconds, WorkRate rate,
                              const std::function<double(double)>& attention);
  void gather_updated_parameters();
  double run_optimizer();
  void finish_step();

  StepWorld& w_;
  int stage_;
  const ReplicaClass& class_;  ///< the replicas this actor's replica stands for
  int replica_;
  int account_;
  int rank_;
  int leader_rank_;  ///< replica 0's rank of this stage: the gradient-group plans' key
  /// Compute time over a uniform GPU's: slow GPUs this stage's layers wait on (replica_classes.hpp).
  double slowdown_ = 1.0;
  /// How much slower compute runs beside a pair's EP collective (ep_overlap_slowdown, run_pair).
  double ep_overlap_slowdown_ = 0;
  /// Whether this stage's TP collectives reuse the durations of those timed before: with
  /// symmetry reduced, or when its TP group's links carry nothing else (StepWorld::isolated_tp).
  bool tp_reuse_ = false;
  int rendezvous_index_ = 0;  ///< gradient-group collectives asked for so far this step
  /// Per LayerGroup: the stage actors whose ranks are in this GPU's group (under --full
  /// several), and the collectives asked for on it so far this step.
  std::array<int, k_layer_groups> group_actors_{};
  std::array<int, k_layer_groups> group_index_{};
  std::vector<int> tp_group_;
  std::vector<int> ep_group_;
  std::vector<int> etp_group_;
  std::vector<int> cp_group_;
  /// The token all-to-all's bytes to an expert-parallel peer in another NVLink domain over
  /// those to one in this GPU's (models/moe_dispatch.hpp, remote_peer_share).
  double ep_remote_share_ = 1.0;
  double ep_kernel_Bps_ =
      0.0;  ///< the dispatcher kernel's rate on the token all-to-all (dispatcher_rates.hpp); 0: NCCL's
  /// Of the bus bytes a pairwise all-to-all of its size sends, the share it sends with that.
  double ep_sent_share_ = 1.0;
  const StageCosts& costs_;
  DataLoader loader_;
  int step_ = 0;
  double step_start_ = 0;
  std::vector<ReplicaRendezvous::Key> dp_inflight_;     ///< this step's reductions (world.rendezvous)
  std::deque<ReplicaRendezvous::Key> unit_gathers_;     ///< ZeRO-3 unit gathers asked for, not yet waited for
  std::vector<engine::CommActivity> beside_;            ///< other communication running beside this GPU's compute
  std::function<void()> beside_done_;                   ///< called when a communication beside the compute ends
  std::optional<ReplicaRendezvous::Key> pair_asked_;    ///< a pair's collective asked for, not started (run_pair)
  std::optional<LayerComm> layer_comm_;                 ///< the running pass's per-layer collectives, if any
  std::optional<ComputeRecord> record_;                 ///< the compute record open, if any
  LazyClock clock_;                                     ///< this actor's time, its sleeps run lazily
  std::optional<ReplicaRendezvous::Key> param_gather_;  ///< overlap_param_gather: the bucket being gathered
  ReductionBucket gathering_;                           ///< what param_gather_ gathers
  std::deque<ReductionBucket> gather_buckets_;          ///< the buckets still to gather, in forward order
  std::vector<double> gather_shares_;                   ///< the first forward's parts, one per bucket (none: whole)
  std::vector<double> dp_bytes_;                        ///< bytes per GPU of each reduction in dp_inflight_
  std::vector<GradientPlanKey> dp_keys_;                ///< the plan of each reduction in dp_inflight_
};

}  // namespace trainsim
