#pragma once
// The process groups of an exported step, as ASTRA-sim names them: each collective node's
// `pg_name` is a group's number, written as an integer string, and a JSON file beside the
// traces maps each number to the group's ranks (ASTRA-sim's --comm-group-configuration).
//
// ASTRA-sim reads that file as one JSON object whose keys are the numbers (std::stoi) and
// whose values are lists of ranks, and reads a node's pg_name with std::stoi too; an empty
// pg_name or "0" means every rank (astra-sim/astra-sim @ 518bd513,
// astra-sim/workload/Workload.cc: Workload::initialize_comm_groups, Workload::extract_comm_group),
// so trainsim's groups are numbered from 1. The readable name ("tp@0": the group's kind and its
// lowest rank) goes in the node's `pg_desc` attribute.

#include <string>
#include <vector>

namespace trainsim::workload {

/// The file name of the comm-group configuration in an export folder.
inline constexpr const char* k_comm_group_file = "comm_groups.json";

/// One process group of an export.
struct CommGroup {
  int id = 0;              ///< pg_name, >= 1
  std::string desc;        ///< pg_desc: "tp@0", "dp@3", "edp.shard@16"
  std::vector<int> ranks;  ///< ascending
};

/// `groups` as ASTRA-sim's --comm-group-configuration file: {"1": [0, 1], "2": [2, 3], ...},
/// in id order.
std::string comm_group_json(const std::vector<CommGroup>& groups);

}  // namespace trainsim::workload
