#pragma once
// How far one communication group reaches: the nodes and NVLink domains its ranks' GPUs are
// on. A group inside one NVLink domain runs its collectives over NVLink; one across domains
// goes through the NICs (the EP group of a Megatron layout placed with DP outermost, issue 55).

#include <string>
#include <vector>

#include "topologies/rank_mapping.hpp"

namespace trainsim {

/// The fewest and most nodes, and NVLink domains, one group of an axis spans, over all the
/// axis' groups (equal when every group is placed alike).
struct GroupSpan {
  std::string name;  ///< "tp", "cp", "dp", "pp", "ep", "expert tp", "expert dp"
  GroupAxis axis = GroupAxis::tp;
  int size = 1;  ///< ranks in one group
  int min_nodes = 1;
  int max_nodes = 1;
  int min_domains = 1;
  int max_domains = 1;
};

/// The span of every group kind, in the order tp, cp, dp, pp, ep, expert tp, expert dp.
std::vector<GroupSpan> group_spans(const RankMapping& mapping);

}  // namespace trainsim
