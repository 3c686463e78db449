#pragma once
// The platform as trainsim built it before issue 18: a tree of SimGrid star zones (GPUs in
// one star; NICs in one star per leaf switch; leaves under their pod or rail, pods and
// rails under the root), routed by SimGrid's recursive zone routing. Its construction is
// quadratic in the cluster (sim/engine/fabric_zone.hpp), so it is kept only as the
// reference that the one-zone platform's routes are compared with.

#include <simgrid/forward.h>

#include <string>
#include <vector>

#include "topologies/cluster_spec.hpp"

namespace trainsim::engine::test {

/// Builds the zone tree of `cluster` on the process' engine, every zone, host and link name
/// prefixed with `prefix`, with the link bandwidths and latencies Platform gives them.
/// Returns the hosts by endpoint index (GPUs, then NICs, as Platform numbers them).
std::vector<simgrid::s4u::Host*> build_zoned_reference(const ClusterSpec& cluster, const std::string& prefix);

}  // namespace trainsim::engine::test
