#pragma once
// A validated scenario: everything below the scenario boundary reads this, never the
// INI text (../shared/STYLE.md, "For trainsim" 2).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/model_spec.hpp"
#include "models/parallel_spec.hpp"
#include "models/training_spec.hpp"
#include "sim/run/run_spec.hpp"
#include "topologies/cluster_spec.hpp"
#include "topologies/variation_spec.hpp"

namespace trainsim {

struct RunSpec {
  int steps = 1;
  std::uint64_t seed = 1;
  double duration_s = 0;      ///< run-level simulation of this long (0: no limit but train_steps)
  long long train_steps = 0;  ///< run-level simulation until this many steps are trained (0: no target)

  /// Whether the run-level simulation runs at all (else the step only).
  bool simulates_run() const { return duration_s > 0 || train_steps > 0; }
};

struct Scenario {
  std::string source;  ///< the file it came from, for messages
  /// Other files its keys read (model.from, model.preset and cluster.preset files,
  /// cluster.fabric_calibration), as resolved paths: inputs no output may overwrite.
  std::vector<std::string> read_files;
  ModelSpec model;
  TrainingSpec training;
  ParallelSpec parallel;
  ClusterSpec cluster;
  RunSpec run;
  FailureSpec failures;
  CheckpointSpec checkpoint;
  ElasticSpec elastic;
  VariationSpec variations;  ///< what differs from a uniform cluster
  /// variations.neighbour's scenario, loaded with this one (its own [variations] empty); null
  /// when there is none. Shared: a scenario's copies point at the same neighbour.
  std::shared_ptr<const Scenario> neighbour;

  /// The cluster the simulation's platform is: this one, with the neighbour's nodes beside
  /// its own when there is one (topologies/neighbour_placement.hpp places them). Its switches
  /// are the ones variations.down_uplink_ids and down_spine_ids name.
  ClusterSpec fabric() const {
    ClusterSpec c = cluster;
    if (neighbour) c.nodes += neighbour->cluster.nodes;
    return c;
  }

  /// GPU memory per device: the cluster's `gpu_memory` if set, else the GPU preset's.
  double gpu_memory_bytes() const { return cluster.gpu.memory_bytes; }

  /// Failure processes per node: one, or one per GPU (failures.unit).
  int failure_units_per_node() const { return failures.unit == FailureUnit::gpu ? cluster.gpus_per_node : 1; }
  /// Mean time to interrupt a job on `nodes` nodes: the MTBF over its failure units; 0 without failures.
  double mtti_s(int nodes) const {
    return failures.mtbf_s > 0 ? failures.mtbf_s / (nodes * failure_units_per_node()) : 0;
  }
};

}  // namespace trainsim
