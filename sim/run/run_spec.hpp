#pragma once
// The run-level part of a scenario: how long the run is, how nodes fail and get repaired,
// how the job checkpoints, and what it does when no spare node is left.

namespace trainsim {

enum class FailureDistribution { exponential, weibull };

/// What an interruption's cause is drawn from (sim/run/failure_causes.hpp).
enum class FailureCauses {
  llama3,   ///< the shares of Llama 3 405B's 419 unexpected interruptions (its Table 5)
  hardware  ///< every interruption is a node's hardware failure (the node goes to repair)
};

/// What a failure process belongs to: each node, or each GPU of a node.
enum class FailureUnit { node, gpu };

struct FailureSpec {
  double mtbf_s = 0;  ///< mean time between interruptions of one unit in the job; 0: none
  FailureUnit unit = FailureUnit::node;
  FailureDistribution distribution = FailureDistribution::exponential;
  double weibull_shape = 1.0;  ///< k of the Weibull distribution (1: exponential)
  FailureCauses causes = FailureCauses::llama3;
  /// Stated assumptions until measured: a minute to notice a dead node, ten to restart the job.
  double detection_s = 60;
  double restart_s = 600;
  /// Planned maintenance: every interval the job checkpoints and stops for the downtime (plus
  /// the restart). 0: none.
  double maintenance_interval_s = 0;
  double maintenance_downtime_s = 0;
  /// Healthy nodes beyond the job's; -1: unlimited (a failed node is replaced at once).
  int spare_nodes = -1;
  /// Time to repair a node out for hardware: a stated assumption (a day: swap a GPU or a
  /// board and burn it in), only used with a finite spare pool.
  double repair_s = 86400;
};

enum class CheckpointMode {
  sync,  ///< training stops while the checkpoint is written
  async  ///< training stops for a snapshot to host memory; the write goes on in the background
};

/// How the data loader's position is saved: in consumed samples (Megatron-LM's sampler: any
/// data-parallel size resumes exactly) or as each rank's offset into its own strided shard
/// (PyTorch's DistributedSampler: a new data-parallel size re-reads or skips samples).
enum class DataSampler { global, per_rank };

struct CheckpointSpec {
  bool automatic = true;         ///< interval from Daly's formula (public.md E4)
  double interval_s = 0;         ///< training time between checkpoints when not automatic; 0: never
  long long interval_steps = 0;  ///< or steps between checkpoints (when > 0)
  CheckpointMode mode = CheckpointMode::sync;
  /// Parallel file system bandwidth, aggregate. Write: a stated default between BLOOM-176B's
  /// 2.3 TB in ~40 s (57 GB/s) and Megatron-LM 1T's 273 GB/s (public.md E2, E3); read:
  /// Megatron-LM's 1 TB/s initial load (public.md E3).
  double write_bandwidth_Bps = 100e9;
  double read_bandwidth_Bps = 1e12;
  /// Each node's link to the file system: a stated default of one 200 Gb/s storage port.
  double node_bandwidth_Bps = 25e9;
  /// The checkpoint records the data loader's position (else a restart reads from sample 0).
  bool save_data_cursor = true;
  DataSampler sampler = DataSampler::global;
  /// The checkpoint can be loaded at another data-parallel size (needed to shrink).
  bool reshardable = true;
};

enum class ElasticPolicy {
  wait,   ///< with no spare node free, wait for a repaired one
  shrink  ///< go on with fewer data-parallel replicas; grow back as nodes return
};

/// When shrinking: keep the global batch (more micro-batches per replica) or let it shrink.
enum class GlobalBatchPolicy { keep, scale };

/// When repaired nodes would let a shrunk job grow back (a restart at the next checkpoint).
enum class GrowPolicy {
  automatic,  ///< when the throughput gained until the next expected interruption pays for the restart
  always,
  never
};

struct ElasticSpec {
  ElasticPolicy policy = ElasticPolicy::wait;
  GlobalBatchPolicy global_batch = GlobalBatchPolicy::keep;
  GrowPolicy grow = GrowPolicy::automatic;
  int min_dp = 1;  ///< never shrink below this many data-parallel replicas (then wait)
};

}  // namespace trainsim
