#pragma once
// What a drill reports: the uninterrupted run's loss curve, and each other run against it
// (recoveries with a full or a partial checkpoint, the scaling comparisons).

#include <Eigen/Core>
#include <string>
#include <vector>

#include "sim/drill/drill_spec.hpp"
#include "sim/drill/trainer.hpp"

namespace trainsim::drill {

/// One run compared with the uninterrupted one, step by step over the surviving histories.
struct RunComparison {
  std::string name;         ///< e.g. "recovered", "omit rng", "same batch dp 4"
  std::string description;  ///< one line: what differs from the uninterrupted run
  Layout layout;            ///< the layout it trained at (after a reshard: the new one)
  std::vector<StepRecord> curve;
  double max_abs_loss_diff = 0;  ///< max over steps of |loss - uninterrupted loss|
  double final_loss_diff = 0;    ///< last step's loss - uninterrupted
  double max_param_diff = 0;     ///< max |final weight - uninterrupted final weight|
  bool bit_identical = false;    ///< every loss and final weight equal, bit for bit
  int restarts = 0;
  long long steps_redone = 0;
  long long skipped_steps = 0;
  double samples_duplicated = 0;  ///< counted from the sample indices trained
  double samples_skipped = 0;
  double cursor_model_duplicated = 0;  ///< as sim/run/data_cursor counts them
  double cursor_model_skipped = 0;
  /// Same-batch runs only: the first update's reduced gradient against the uninterrupted
  /// run's (same weights, samples and dropout masks: only the summation order differs), at
  /// step gradient_step (1, or the first not skipped for overflow). -1: not compared.
  long long gradient_step = -1;
  double gradient_max_abs_diff = -1;
  double gradient_rel_l2_diff = -1;  ///< ||g - g_ref|| / ||g_ref||
};

struct DrillResult {
  DrillSpec spec;
  int scenario_dp = 1;  ///< the scenario's data-parallel size, before the cap
  int dp_cap = 8;
  std::vector<long long> fail_at;
  Eigen::Index parameters = 0;
  std::vector<StepRecord> reference;  ///< the uninterrupted run
  long long reference_skipped_steps = 0;
  std::vector<RunComparison> runs;
  std::vector<std::string> notes;  ///< what the reader should know (omissions without effect, skipped cases)
};

}  // namespace trainsim::drill
