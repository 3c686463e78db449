#pragma once
// Which endpoints of a cluster's platform a simulation can touch, so that Platform builds
// only those (platform.hpp). A step simulated with symmetry reduced touches one replica's
// GPUs and, for the gradient reductions, one NIC rail of every other node: on 1,048,576
// GPUs most hosts and ports would be built for nothing (bench/README.md, "Benchmarks and scale").

#include <vector>

#include "topologies/cluster_spec.hpp"
#include "topologies/fabric_layout.hpp"

namespace trainsim::engine {

class EndpointSelection {
 public:
  explicit EndpointSelection(const ClusterSpec& cluster);

  /// Adds every endpoint a message between two of `gpus` may cross (Platform::hops): the
  /// GPUs, the PXN relays on their nodes (the GPUs at the local indices among `gpus`) and
  /// their nodes' NICs on those indices' rails. A superset when the GPUs mix local indices.
  void add_group(const std::vector<int>& gpus);

  /// Per endpoint (Platform's numbering: GPUs, then NICs), whether it is selected.
  const std::vector<bool>& endpoints() const { return selected_; }

 private:
  ClusterSpec cluster_;
  FabricLayout layout_;
  std::vector<bool> selected_;
};

}  // namespace trainsim::engine
