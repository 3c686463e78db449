#include "sim/engine/endpoint_selection.hpp"

#include <set>

namespace trainsim::engine {

EndpointSelection::EndpointSelection(const ClusterSpec& cluster)
    : cluster_(cluster),
      layout_(fabric_layout(cluster)),
      selected_(static_cast<size_t>(cluster.total_gpus()) + static_cast<size_t>(cluster.nodes) * layout_.nics_per_node,
                false) {}

void EndpointSelection::add_group(const std::vector<int>& gpus) {
  const int per_node = cluster_.gpus_per_node;
  std::set<int> locals;
  for (const int g : gpus) locals.insert(g % per_node);
  const auto gpu_count = static_cast<size_t>(cluster_.total_gpus());
  for (const int g : gpus) {
    const int node = g / per_node;
    selected_[static_cast<size_t>(g)] = true;
    for (const int local : locals) {
      selected_[static_cast<size_t>(node * per_node + local)] = true;  // a PXN relay
      const int nic = layout_.nic_of_gpu(local);
      selected_[gpu_count + static_cast<size_t>(node * layout_.nics_per_node + nic)] = true;
    }
  }
}

}  // namespace trainsim::engine
