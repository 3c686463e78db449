#pragma once
// One pipeline stage of one simulated replica, as a SimGrid actor: it plays the schedule's
// order of passes step after step, each pass's work done by its parts (README.md, "Files of
// the stage actor"): compute with its slowdowns (stage_compute.hpp), the layers' TP, EP and
// CP collectives (layer_collectives.hpp), gradient reduction (gradient_reduction.hpp), ZeRO's
// parameter gathers (parameter_gathers.hpp), forward-backward pairs (stage_pair.hpp), the
// data, offload and host waits (stage_waits.hpp). Its outputs go to the next stage through the
// transfer board; its time goes to its GPU account, its activities to the step's observer.

#include <cstdint>
#include <optional>

#include "sim/engine/comm_activity.hpp"
#include "sim/schedule/pipeline_task.hpp"
#include "sim/step/gradient_reduction.hpp"
#include "sim/step/layer_collectives.hpp"
#include "sim/step/parameter_gathers.hpp"
#include "sim/step/stage_compute.hpp"
#include "sim/step/stage_context.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/stage_pair.hpp"
#include "sim/step/stage_traffic.hpp"
#include "sim/step/stage_waits.hpp"
#include "sim/step/step_world.hpp"
#include "sim/step/transfer_board.hpp"

namespace trainsim {

class StageActor : private StageTraffic {
 public:
  /// Stage `stage` of the representative of world.simulated.classes[replica_class] (its TP
  /// rank 0), accounted in world.accounts[account].
  StageActor(StepWorld& world, int stage, int replica_class, int account);
  StageActor(const StageActor&) = delete;  ///< its parts refer to one another
  StageActor& operator=(const StageActor&) = delete;

  /// The actor's body: scenario.run.steps steps, each ended at world.step_end (a neighbour's:
  /// steps until its foreground job has played all of its).
  void operator()();

 private:
  // StageTraffic, from the parts that own each.
  const engine::CommActivity* gradient_traffic_in_flight() const override;
  const engine::CommActivity* parameter_gather_in_flight() const override;
  std::optional<ReplicaRendezvous::Key> awaited_start() const override;

  // The pipeline: which pass's output a pass takes, and where its own goes.
  int chunks() const;
  int global_chunk(const PipelineTask& t) const;
  const ChunkCosts& chunk_costs(const PipelineTask& t) const;
  std::optional<TaskKey> input_of(const PipelineTask& t) const;
  /// A pipeline transfer's number, unique in the run (ActivityComm::tag).
  std::int64_t transfer_tag(const TaskKey& key) const;
  bool inputs_ready(const PipelineTask& t) const;
  void wait_inputs(const PipelineTask& t);
  void send_output(const PipelineTask& t);

  // Passes: which part runs what of each, in which order.
  double compute_pass(const char* kind, const PipelineTask& t, const PassCost& pass, bool with_buckets);
  void add_flops(const PassCost& pass, bool recomputed);
  double run_pass(const char* kind, const PipelineTask& t, const PassCost& pass, bool with_buckets);
  void run_task(const PipelineTask& t);
  void run_weight(const PipelineTask& t);
  void forward_done(const PipelineTask& t, const PassCost& pass);

  // MoE all-to-all overlap (Megatron-Core's combined 1F1B).
  void run_pair(const PipelineTask& forward, const PipelineTask& backward);

  // The step's end: its reductions waited for, the optimizer, the updated parameters gathered.
  double run_optimizer();
  void finish_step();

  // The parts, each on those above it.
  StageContext s_;
  LayerCollectives layers_;
  StageCompute compute_;
  GradientReduction reduction_;
  ParameterGathers gathers_;
  StagePair pair_;
  StageWaits waits_;
};

}  // namespace trainsim
