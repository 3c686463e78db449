#pragma once
// One training run of the drill: steps of the tiny model on the data-parallel layout, the
// ranks' gradients reduced in the scenario's order and format, checkpoints every
// checkpoint_every steps, and the plan's interruptions (each a restart from the last
// checkpoint). What it returns is the surviving history: for each step, the last time it was
// trained.

#include <Eigen/Core>
#include <vector>

#include "sim/drill/drill_spec.hpp"

namespace trainsim::drill {

struct StepRecord {
  long long step = 0;
  double loss = 0;        ///< mean cross-entropy over the global batch's tokens, before the update
  double lr = 0;          ///< learning rate applied (0 when skipped)
  double loss_scale = 1;  ///< scale the step's loss was multiplied by
  bool skipped = false;   ///< overflow: no update
  int dp = 0;             ///< data-parallel ranks that trained it
};

struct TrainedRun {
  std::vector<StepRecord> steps;                ///< surviving history, step i at i - 1
  std::vector<std::vector<long long>> samples;  ///< each surviving step's global sample indices
  Eigen::VectorXf final_params;
  /// The reduced (unscaled) gradient of the first step that updated the weights (not skipped
  /// for overflow), at its first execution, and that step.
  Eigen::VectorXf first_gradient;
  long long first_gradient_step = 0;
  int restarts = 0;
  long long steps_redone = 0;   ///< steps trained again after a restart
  long long skipped_steps = 0;  ///< surviving steps skipped for overflow
  /// Counted from the surviving history's sample indices: samples trained more than once
  /// (once per extra time), and indices below the furthest reached never trained.
  double samples_duplicated = 0;
  double samples_skipped = 0;
  /// The same, as the run simulation's cursor model counts them (sim/run/data_cursor.hpp).
  double cursor_model_duplicated = 0;
  double cursor_model_skipped = 0;
};

/// Trains `spec.steps` steps from `spec.seed`'s initial weights under `plan`. Throws Error
/// for an invalid spec (a layout or step count < 1).
TrainedRun train(const DrillSpec& spec, const RecoveryPlan& plan = {});

}  // namespace trainsim::drill
