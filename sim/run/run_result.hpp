#pragma once
// What a simulated run reports (`trainsim run --json`, key "run"; the trace's /run,
// /failures and /checkpoints). Seconds of simulated time from the run's start.

#include <string>
#include <vector>

#include "sim/core/checked_output.hpp"

namespace trainsim {

/// One interruption of the run: a failure, a planned maintenance stop, or a straggler's drain.
struct InterruptionRecord {
  double time_s = 0;       ///< when the job stopped
  int node = -1;           ///< the node that failed; -1 for planned maintenance and drains
  std::string cause;       ///< a component of Llama 3's Table 5 (failures.causes), "planned maintenance" or "straggler drained"
  bool planned = false;    ///< maintenance or a drain: a checkpoint is taken first, no work is lost
  double lost_work_s = 0;  ///< training since the last committed checkpoint, thrown away
  double downtime_s = 0;   ///< until training resumed: detection, waiting for nodes, restart, checkpoint read
  int dp_after = 0;        ///< data-parallel replicas when training resumed (0: the run ended first)
};

/// One checkpoint: written and committed, or interrupted (then the previous one stays).
struct CheckpointRecord {
  double start_s = 0;   ///< when it began (sync: training stops; async: the snapshot to host memory)
  double end_s = 0;     ///< committed, or interrupted, at
  long long steps = 0;  ///< training steps it holds
  double bytes = 0;     ///< all shards
  bool committed = false;
  bool async = false;  ///< written in the background while training went on
};

struct RunResult {
  double wall_time_s = 0;                    ///< the run's length
  double useful_time_s = 0;                  ///< steps that count at the end x their step time
  double effective_training_time_ratio = 0;  ///< useful / wall
  long long steps_completed = 0;
  int failures = 0;
  int planned_interruptions = 0;  ///< planned maintenance stops
  int restarts = 0;
  int checkpoints_written = 0;       ///< committed (every shard and the manifest written)
  int checkpoints_interrupted = 0;   ///< a failure hit while writing: the previous one stays
  double checkpoint_overhead_s = 0;  ///< training stopped for checkpoints (sync: the write; async: the snapshot)
  double lost_work_s = 0;            ///< training redone after failures
  double restart_overhead_s = 0;     ///< detection, restart and checkpoint reads
  double waiting_for_nodes_s = 0;    ///< stopped with no spare node free (elastic.policy = wait)
  int stragglers = 0;                ///< GPUs that turned slow while training (variations.straggler_mtbf)
  int straggler_drains = 0;          ///< planned restarts that drained a straggler's node
  /// Training time the stragglers' slower steps took beyond the uniform job's.
  double straggler_slowdown_s = 0;
  /// Training in the step still under way when run.duration ran out: neither useful nor lost.
  /// With it the parts add up: useful + lost + checkpoint + restart + waiting + straggler
  /// slowdown + unfinished = wall.
  double unfinished_step_s = 0;
  double checkpoint_interval_s = 0;  ///< training time between checkpoints
  double checkpoint_cost_s = 0;      ///< one checkpoint's write time through the storage model
  double checkpoint_bytes = 0;
  double mtti_s = 0;              ///< the cluster's mean time to interrupt (MTBF / failure units)
  double samples_trained = 0;     ///< samples in the steps that count
  double samples_duplicated = 0;  ///< samples the final model trained on more than once
  double samples_skipped = 0;     ///< samples below the furthest one reached never trained on
  int resizes = 0;                ///< restarts at a different data-parallel size
  int min_dp = 0;                 ///< the fewest data-parallel replicas trained with
  double global_batch_min = 0;    ///< the smallest global batch (samples) trained with
  double global_batch_max = 0;    ///< the largest (keeping the batch may round it up)
  /// The first 100,000 interruptions and checkpoints (k_max_run_records, run_limits.hpp); the
  /// counts above cover them all.
  std::vector<InterruptionRecord> interruptions;
  std::vector<CheckpointRecord> checkpoints;
};

/// Every scalar field of a RunResult with its `--json` and trace name, in output order: one
/// list serves the JSON, reading it back from the child that simulated it, and the trace.
template <class Result, class Visit>
void for_each_run_field(Result& r, Visit&& visit) {
  visit("wall_time_s", r.wall_time_s);
  visit("useful_time_s", r.useful_time_s);
  visit("effective_training_time_ratio", r.effective_training_time_ratio);
  visit("steps_completed", r.steps_completed);
  visit("failures", r.failures);
  visit("planned_interruptions", r.planned_interruptions);
  visit("restarts", r.restarts);
  visit("checkpoints_written", r.checkpoints_written);
  visit("checkpoints_interrupted", r.checkpoints_interrupted);
  visit("checkpoint_overhead_s", r.checkpoint_overhead_s);
  visit("lost_work_s", r.lost_work_s);
  visit("restart_overhead_s", r.restart_overhead_s);
  visit("waiting_for_nodes_s", r.waiting_for_nodes_s);
  visit("stragglers", r.stragglers);
  visit("straggler_drains", r.straggler_drains);
  visit("straggler_slowdown_s", r.straggler_slowdown_s);
  visit("unfinished_step_s", r.unfinished_step_s);
  visit("checkpoint_interval_s", r.checkpoint_interval_s);
  visit("checkpoint_cost_s", r.checkpoint_cost_s);
  visit("checkpoint_bytes", r.checkpoint_bytes);
  visit("mtti_s", r.mtti_s);
  visit("samples_trained", r.samples_trained);
  visit("samples_duplicated", r.samples_duplicated);
  visit("samples_skipped", r.samples_skipped);
  visit("resizes", r.resizes);
  visit("min_dp", r.min_dp);
  visit("global_batch_min", r.global_batch_min);
  visit("global_batch_max", r.global_batch_max);
}

/// Every scalar field through checked_output (sim/core/checked_output.hpp), as
/// check_step_fields does for a step: where a run's results are printed or written.
inline void check_run_fields(const RunResult& r) {
  for_each_run_field(r, [](const char* name, const auto& value) { checked_output(name, static_cast<double>(value)); });
}

}  // namespace trainsim
