#pragma once
// A captured workload: the traces of every rank of one job, <prefix>.0.et, <prefix>.1.et, ...,
// checked against one another (every send has its receive, every process group's members run
// the same collectives in the same order).

#include <cstddef>
#include <string>
#include <vector>

#include "sim/workload/rank_trace.hpp"

namespace trainsim::workload {

/// The most ranks read: 4,096 (the collective engine simulates larger groups, but a replay
/// holds every rank's nodes in memory).
inline constexpr int k_max_workload_ranks = 4096;

struct Workload {
  std::string prefix;
  std::vector<RankTrace> ranks;  ///< rank r at index r

  /// The ranks of a process group: every rank for "", else the ranks whose traces hold a
  /// collective with that pg_name, in increasing order.
  std::vector<int> group_ranks(const std::string& pg_name) const;
  TraceFaults tolerated() const;
};

/// Reads <prefix>.0.et, <prefix>.1.et, ... up to the first rank without a file, then
/// check_workload(). Throws InputError when there is no <prefix>.0.et or a file is bad.
Workload read_workload(const std::string& prefix);

/// Cross-rank rules; throws InputError naming the file and node: a send or receive whose peer
/// is not a rank of the workload (or itself), a send without its receive (matched in order
/// per source, destination and tag) or a receive without its send, a process group whose
/// members run different numbers or types of collectives, a collective with involved_dim
/// naming only some dimensions.
void check_workload(const Workload& w);

}  // namespace trainsim::workload
