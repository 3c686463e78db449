#include "topologies/group_span.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace trainsim {

std::vector<GroupSpan> group_spans(const RankMapping& mapping) {
  const std::vector<std::pair<const char*, GroupAxis>> kinds{
      {"tp", GroupAxis::tp}, {"cp", GroupAxis::cp},         {"dp", GroupAxis::dp},        {"pp", GroupAxis::pp},
      {"ep", GroupAxis::ep}, {"expert tp", GroupAxis::etp}, {"expert dp", GroupAxis::edp}};
  std::vector<GroupSpan> spans;
  for (const auto& [name, axis] : kinds) {
    GroupSpan span;
    span.name = name;
    span.axis = axis;
    bool first = true;
    for (const std::vector<int>& group : mapping.groups(axis)) {
      std::set<int> nodes;
      std::set<int> domains;
      for (const int rank : group) {
        nodes.insert(mapping.node_of(rank));
        domains.insert(mapping.domain_of(rank));
      }
      const int n = static_cast<int>(nodes.size());
      const int d = static_cast<int>(domains.size());
      span.size = static_cast<int>(group.size());
      span.min_nodes = first ? n : std::min(span.min_nodes, n);
      span.max_nodes = first ? n : std::max(span.max_nodes, n);
      span.min_domains = first ? d : std::min(span.min_domains, d);
      span.max_domains = first ? d : std::max(span.max_domains, d);
      first = false;
    }
    spans.push_back(span);
  }
  return spans;
}

}  // namespace trainsim
