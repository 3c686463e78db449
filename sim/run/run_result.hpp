#pragma once
// What a simulated run reports (`trainsim run --json`, key "run"). Seconds of simulated time.

namespace trainsim {

struct RunResult {
  double wall_time_s = 0;                    ///< the run's length
  double useful_time_s = 0;                  ///< steps that count at the end x step time
  double effective_training_time_ratio = 0;  ///< useful / wall
  long long steps_completed = 0;
  int failures = 0;
  int restarts = 0;
  int checkpoints_written = 0;       ///< committed (every shard and the manifest written)
  int checkpoints_interrupted = 0;   ///< a failure hit while writing: the previous one stays
  double checkpoint_overhead_s = 0;  ///< time spent writing checkpoints
  double lost_work_s = 0;            ///< training redone after failures
  double restart_overhead_s = 0;     ///< detection, restart and checkpoint reads
  double checkpoint_interval_s = 0;  ///< training time between checkpoints
  double checkpoint_cost_s = 0;      ///< one checkpoint's write time
  double checkpoint_bytes = 0;
  double mtti_s = 0;              ///< the cluster's mean time to interrupt (node MTBF / nodes)
  double samples_duplicated = 0;  ///< samples the final model trained on more than once
  double samples_skipped = 0;     ///< samples below the furthest one reached never trained on
};

}  // namespace trainsim
