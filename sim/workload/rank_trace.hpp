#pragma once
// One rank's Chakra execution trace, read: its metadata, its nodes in file order, and the
// faults the reader tolerated.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/workload/chakra_node.hpp"

namespace trainsim::workload {

/// Faults a trace may have without being refused; counted, reported once (one line).
struct TraceFaults {
  std::uint64_t missing_deps = 0;        ///< dependencies on node ids not in the file (dropped)
  std::uint64_t reversed_ctrl_deps = 0;  ///< ctrl_deps against the data_deps order (dropped)
  std::uint64_t cpu_collectives = 0;     ///< COMM_COLL_NODEs with is_cpu_op true (c10d:: ops; skipped)
  std::uint64_t cpu_ops = 0;             ///< other CPU-side nodes (skipped)
  std::uint64_t zero_durations = 0;      ///< GPU compute nodes recorded with 0 us
  std::uint64_t other_nodes = 0;         ///< metadata, memory, storage, batch, checkpoint nodes (skipped)

  TraceFaults& operator+=(const TraceFaults& o);
  /// "1277 dependencies on nodes not in the file, 14 CPU-side collective nodes, ...", or ""
  /// when there are none.
  std::string describe() const;
};

struct RankTrace {
  std::string path;
  int rank = 0;
  std::string version;                          ///< GlobalMetadata.version
  std::map<std::string, std::string> metadata;  ///< GlobalMetadata attributes, printed as text
  std::vector<ChakraNode> nodes;                ///< file order; deps always earlier-or-later indices
  TraceFaults tolerated;

  /// Node count of one NodeType number.
  std::uint64_t count_of_type(int type) const;
};

}  // namespace trainsim::workload
