#pragma once
// What a training job holds between steps, and the checkpoint that saves it: weights,
// optimizer state, the scheduler, every rank's RNG state, the data cursor, the loss scale and
// the parallel layout it was taken at (the items a recovery must restore for the recovered
// run to be the uninterrupted one, bit for bit).

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "sim/drill/adam_optimizer.hpp"
#include "sim/drill/counter_rng.hpp"
#include "sim/drill/drill_spec.hpp"
#include "sim/drill/loss_scaler.hpp"
#include "sim/drill/sampler.hpp"

namespace trainsim::drill {

struct TrainState {
  long long step = 0;  ///< steps trained
  Eigen::VectorXf params;
  AdamState adam;
  long long scheduler_updates = 0;  ///< the learning-rate scheduler's own count
  std::vector<RngState> rng;        ///< one per data-parallel rank
  SamplerCursor cursor;
  LossScaleState loss_scale;
  Layout layout;  ///< parallel metadata: the layout the state was trained at
};

/// A checkpoint is a copy of the state at a step (taken in memory: the drill checks what is
/// saved, not how it is written).
using Checkpoint = TrainState;

/// The state a run starts from: `params`, fresh optimizer, scheduler, loss scale and cursor,
/// every rank's generator at offset 0 of the shared seed (data-parallel ranks share the
/// dropout seed, Megatron-LM's default without --data-parallel-random-init).
TrainState initial_state(const DrillSpec& spec, const Eigen::VectorXf& params, const Layout& layout);

/// The state a restart resumes with: `saved`, `omit` reset to its initial value, at `layout`
/// (the saved one, or another data-parallel size: each new rank takes rank 0's generator, the
/// ranks' states being equal; the cursor is taken as the sampler reads it, sampler.hpp).
TrainState restore(const DrillSpec& spec, const Checkpoint& saved, std::optional<CheckpointItem> omit,
                   const Layout& layout);

}  // namespace trainsim::drill
