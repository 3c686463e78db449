#pragma once
// Where two jobs sharing a fabric sit (variations.neighbour, topologies/variation_spec.hpp):
// the platform's node of each of the job's nodes and of each of its neighbour's.

#include <vector>

#include "topologies/variation_spec.hpp"

namespace trainsim {

struct NeighbourNodes {
  std::vector<int> job;        ///< the platform node of each of the job's nodes, ascending
  std::vector<int> neighbour;  ///< and of each of its neighbour's
};

/// `after`: the job on nodes 0 .. job_nodes - 1, the neighbour on the next ones;
/// `interleaved`: the job on the even blocks of `block` nodes (an NVLink domain's: 1 on
/// DGX/HGX, a rack's 18 compute trays on NVL72) and the neighbour on the odd ones while both
/// have blocks left, then the one with more on the rest. Both jobs' node counts are whole
/// blocks (the scenario rules hold them so).
NeighbourNodes place_neighbour(int job_nodes, int neighbour_nodes, NeighbourPlacement placement, int block = 1);

}  // namespace trainsim
