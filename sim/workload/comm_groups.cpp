#include "sim/workload/comm_groups.hpp"

#include <nlohmann/json.hpp>

namespace trainsim::workload {

std::string comm_group_json(const std::vector<CommGroup>& groups) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const CommGroup& g : groups) j[std::to_string(g.id)] = g.ranks;
  return j.dump() + "\n";
}

}  // namespace trainsim::workload
