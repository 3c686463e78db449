#include "models/graph_replay.hpp"

#include "models/cuda_graphs.hpp"

namespace trainsim {

bool continues_graph(const std::vector<Op>& ops, std::size_t i) {
  if (ops[i].graph_scope < 0) return false;
  while (i > 0 && ops[i - 1].name == "moe.dtoh") --i;
  return i > 0 && ops[i - 1].graph_scope >= 0;
}

int graph_replay_copies(const std::vector<Op>& ops, std::size_t first) {
  const int full = static_cast<int>(GraphScope::full_iteration);
  if (ops[first].graph_scope < 0 || ops[first].graph_scope == full || continues_graph(ops, first)) return 0;
  if (ops[first].pass != OpPass::backward) return 1;
  // The router's or the preprocess's scope in this graph: it ends before the experts.
  for (std::size_t i = first; i < ops.size() && (i == first || continues_graph(ops, i)); ++i) {
    const int s = ops[i].graph_scope;
    if (s == static_cast<int>(GraphScope::moe_router) || s == static_cast<int>(GraphScope::moe_preprocess)) return 3;
  }
  return 1;
}

}  // namespace trainsim
