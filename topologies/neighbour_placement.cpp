#include "topologies/neighbour_placement.hpp"

#include <algorithm>

namespace trainsim {

NeighbourNodes place_neighbour(int job_nodes, int neighbour_nodes, NeighbourPlacement placement, int block) {
  NeighbourNodes n;
  const int shared = placement == NeighbourPlacement::interleaved ? std::min(job_nodes, neighbour_nodes) / block : 0;
  int node = 0;
  for (int i = 0; i < shared; ++i) {
    for (int b = 0; b < block; ++b) n.job.push_back(node++);
    for (int b = 0; b < block; ++b) n.neighbour.push_back(node++);
  }
  while (static_cast<int>(n.job.size()) < job_nodes) n.job.push_back(node++);
  while (static_cast<int>(n.neighbour.size()) < neighbour_nodes) n.neighbour.push_back(node++);
  return n;
}

}  // namespace trainsim
