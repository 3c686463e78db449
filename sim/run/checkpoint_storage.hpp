#pragma once
// The storage model of checkpoints: every node writes its ranks' shards through its own link
// to a parallel file system whose aggregate bandwidth they all share (and reads them back on
// a restart), simulated on SimGrid: max-min sharing of the node links and the file system.

#include <vector>

#include "sim/scenario/scenario.hpp"

namespace trainsim {

struct CheckpointCosts {
  double bytes = 0;       ///< all shards
  double write_s = 0;     ///< every node's shards written (the manifest is negligible)
  double read_s = 0;      ///< every node's shards read back
  double snapshot_s = 0;  ///< async mode: the largest shard copied GPU -> host memory
};

/// Bytes each node writes: a rank writes its stage's weights if it is the first data-parallel
/// rank of its (tp, pp) position, and its share of the optimizer states (models/checkpoint_size.hpp).
std::vector<double> checkpoint_bytes_per_node(const Scenario& s);

/// Simulates one write and one read of the scenario's checkpoint. Creates the process'
/// SimGrid engine: call once per process.
CheckpointCosts simulate_checkpoint_storage(const Scenario& s);

}  // namespace trainsim
