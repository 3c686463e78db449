#pragma once
// What one training step asks of each pipeline rank, before any simulation: the compute
// time of every (micro-batch, chunk, pass) from the compute model, the tensor-parallel
// collectives each pass issues, the pipeline activations sent between stages, and the
// gradients reduced across data-parallel ranks. The step simulation (step_simulation.hpp)
// plays these on SimGrid.

#include <vector>

#include "sim/compute/compute_model.hpp"
#include "sim/engine/collective.hpp"
#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// `count` collectives of `bytes` each (nccl-tests size convention) on the pass's TP group.
struct GroupCollective {
  engine::CollectiveOp op = engine::CollectiveOp::all_reduce;
  double bytes = 0;
  int count = 0;
};

/// One micro-batch through one model chunk, one pass, on one GPU.
struct PassCost {
  double compute_s = 0;
  double model_flops = 0;                       ///< Megatron-LM / PaLM convention (for MFU)
  double executed_flops = 0;                    ///< what the kernels execute
  std::vector<GroupCollective> tp_collectives;  ///< blocking, as in Megatron-LM
};

struct ChunkCosts {
  int global_chunk = 0;  ///< chunk * pp + stage
  int layers = 0;
  PassCost forward;
  PassCost recompute;  ///< forward work repeated before backward
  PassCost backward;   ///< input gradients (+ weight gradients unless the schedule defers them)
  PassCost weight;     ///< deferred weight gradients (zero-bubble schedules), else empty
};

struct StageCosts {
  int stage = 0;
  std::vector<ChunkCosts> chunks;    ///< this rank's chunks, chunk index 0..virtual_stages-1
  double dense_gradient_bytes = 0;   ///< reduced over the dp x cp ranks each step
  double expert_gradient_bytes = 0;  ///< reduced over dp x cp / ep ranks
  double optimizer_s = 0;
  double optimizer_model_flops = 0;
};

struct StepCosts {
  std::vector<StageCosts> stages;
  double activation_bytes = 0;  ///< sent between adjacent stages per micro-batch, each way
  int microbatches = 0;
};

/// Costs of one step of `scenario`, timed by `compute`. `defer_weight_gradients` splits
/// each backward into input- and weight-gradient passes (zero-bubble schedules).
StepCosts build_step_costs(const Scenario& scenario, const ComputeModel& compute, bool defer_weight_gradients);

}  // namespace trainsim
