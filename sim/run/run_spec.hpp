#pragma once
// The run-level part of a scenario: how long the run is, how nodes fail, how it checkpoints.

namespace trainsim {

enum class FailureDistribution { exponential, weibull };

struct FailureSpec {
  double node_mtbf_s = 0;  ///< mean time between failures of one node; 0: no failures
  FailureDistribution distribution = FailureDistribution::exponential;
  double weibull_shape = 1.0;  ///< k of the Weibull distribution (1: exponential)
  /// Stated assumptions until measured: a minute to notice a dead node, ten to restart the job.
  double detection_s = 60;
  double restart_s = 600;
};

struct CheckpointSpec {
  bool automatic = true;  ///< interval from Daly's formula (public.md E4)
  double interval_s = 0;  ///< training time between checkpoints when not automatic; 0: never
  /// Aggregate file-system bandwidth. Write: a stated default between BLOOM-176B's 2.3 TB in
  /// ~40 s (57 GB/s) and Megatron-LM 1T's 273 GB/s (public.md E2, E3); read: Megatron-LM's
  /// 1 TB/s initial load (public.md E3).
  double write_bandwidth_Bps = 100e9;
  double read_bandwidth_Bps = 1e12;
  /// The checkpoint records the data loader's position (else a restart reads from sample 0).
  bool save_data_cursor = true;
};

}  // namespace trainsim
