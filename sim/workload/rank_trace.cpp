#include "sim/workload/rank_trace.hpp"

#include <algorithm>

namespace trainsim::workload {

TraceFaults& TraceFaults::operator+=(const TraceFaults& o) {
  missing_deps += o.missing_deps;
  reversed_ctrl_deps += o.reversed_ctrl_deps;
  cpu_collectives += o.cpu_collectives;
  cpu_ops += o.cpu_ops;
  zero_durations += o.zero_durations;
  other_nodes += o.other_nodes;
  return *this;
}

std::string TraceFaults::describe() const {
  std::string s;
  auto add = [&s](std::uint64_t count, const char* what) {
    if (count == 0) return;
    s += (s.empty() ? "" : ", ") + std::to_string(count) + " " + what;
  };
  add(missing_deps, "dependencies on nodes not in the file (dropped)");
  add(reversed_ctrl_deps, "ctrl_deps against the data_deps order (dropped)");
  add(cpu_collectives, "CPU-side collective nodes (skipped)");
  add(cpu_ops, "other CPU-side nodes (skipped)");
  add(zero_durations, "GPU compute nodes of 0 us");
  add(other_nodes, "metadata, memory or storage nodes (skipped)");
  return s;
}

std::uint64_t RankTrace::count_of_type(int type) const {
  return static_cast<std::uint64_t>(
      std::count_if(nodes.begin(), nodes.end(), [type](const ChakraNode& n) { return n.type == type; }));
}

}  // namespace trainsim::workload
