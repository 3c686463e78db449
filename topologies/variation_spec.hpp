#pragma once
// What differs from a uniform cluster (the scenario's [variations] section): GPUs that
// compute slower than the others from the start, NICs at part of their bandwidth, leaf
// uplinks down, another job on the same fabric, and stragglers that appear during a long
// run. A value type; topologies/slow_parts.hpp says which parts.

#include <string>
#include <vector>

namespace trainsim {

/// Where a neighbour job's nodes sit beside the job's: after them (node ids M .. M+N-1), or
/// alternating with them node by node while both have nodes left (sharing their leaves).
enum class NeighbourPlacement { after, interleaved };

struct VariationSpec {
  int slow_gpu_count = 0;         ///< slow GPUs drawn at random (seeded by run.seed)
  std::vector<int> slow_gpu_ids;  ///< or these GPUs, listed (ascending, distinct)
  double slow_gpu_speed = 0.9;    ///< a slow GPU's compute speed over the others' (0, 1]
  int slow_nic_count = 0;         ///< NICs at a fraction of their bandwidth, drawn (seeded by run.seed)
  std::vector<int> slow_nic_ids;  ///< or these NICs (node x nics_per_node + index), listed
  double slow_nic_speed = 0.5;    ///< a slow NIC's bandwidth over the others' (0, 1]
  int down_uplink_count = 0;      ///< leaf uplink cables down, drawn (seeded by run.seed)
  std::vector<int> down_uplink_ids;  ///< or these cables (leaf x uplinks per leaf + index), listed
  int down_spine_count = 0;          ///< spine switches down, drawn (seeded by run.seed)
  std::vector<int> down_spine_ids;   ///< or these spines (pod or rail x uplinks per leaf + index), listed
  /// Run level: mean time between one GPU turning into a straggler (at slow_gpu_speed) while
  /// the job trains; 0: none.
  double straggler_mtbf_s = 0;
  /// From a straggler's appearance until it is found and its node drained (checkpoint,
  /// restart on a spare): a stated assumption, an hour (step-time telemetry shows a slower
  /// job; telling which GPU takes a look at every rank's timings).
  double straggler_detection_s = 3600;
  /// Another job's scenario file, played on its own nodes of the same fabric beside this job's
  /// step ("the noisy neighbour"); "" for none. Relative paths are the scenario file's.
  std::string neighbour;
  NeighbourPlacement neighbour_placement = NeighbourPlacement::after;

  /// Whether any GPU differs.
  bool any() const { return (slow_gpu_count > 0 || !slow_gpu_ids.empty()) && slow_gpu_speed < 1.0; }
  /// Whether any NIC differs.
  bool any_slow_nic() const { return (slow_nic_count > 0 || !slow_nic_ids.empty()) && slow_nic_speed < 1.0; }
  /// Whether any uplink is down.
  bool any_down_uplink() const { return down_uplink_count > 0 || !down_uplink_ids.empty(); }
  /// Whether any spine switch is down.
  bool any_down_spine() const { return down_spine_count > 0 || !down_spine_ids.empty(); }
  /// Whether any part of the job's own cluster differs (slow GPUs or NICs, uplinks down, stragglers).
  bool any_part() const {
    return any() || any_slow_nic() || any_down_uplink() || any_down_spine() || straggler_mtbf_s > 0;
  }
};

}  // namespace trainsim
