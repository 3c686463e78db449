#include "models/cuda_graphs.hpp"

#include "models/op.hpp"

namespace trainsim {

namespace {

// The op's first name component: "attention" of "attention.proj.dgrad", "qkv" of "qkv".
std::string_view head(std::string_view name) {
  return name.substr(0, name.find('.'));
}

}  // namespace

const std::vector<std::string>& graph_scope_names() {
  static const std::vector<std::string> names{"attn", "mlp", "moe_router", "moe_preprocess", "moe", "full_iteration"};
  return names;
}

std::string graph_scopes_text(const CudaGraphs& g) {
  if (g.none()) return "none";
  std::string text;
  for (size_t i = 0; i < graph_scope_names().size(); ++i)
    if (g.has(static_cast<GraphScope>(i))) text += (text.empty() ? "" : "+") + graph_scope_names()[i];
  return text;
}

int captured_by(const CudaGraphs& g, std::string_view name, GraphedLayer layer) {
  const auto scope = [&](GraphScope s) { return g.has(s) ? static_cast<int>(s) : -1; };
  if (g.has(GraphScope::full_iteration)) return static_cast<int>(GraphScope::full_iteration);
  const std::string_view h = head(name);
  if (h == "attention" || h == "qkv" || h == "q" || h == "kv" || h == "block") return scope(GraphScope::attn);
  if (!layer.moe) return h == "mlp" ? scope(GraphScope::mlp) : -1;
  if (g.has(GraphScope::moe) && (h == "mlp" || h == "router" || h == "shared_experts" || h == "moe" || h == "experts"))
    return scope(GraphScope::moe);
  if (name.starts_with("mlp.norm") || h == "router" || h == "shared_experts") return scope(GraphScope::moe_router);
  // The preprocess and the permutation; the counts' device-to-host copies (moe.dtoh) run after
  // the graph, eagerly (token_dispatcher.py @ 0d8e0714: cuda_dtoh_point = before_ep_alltoall).
  if (layer.sender_permutes && (name.starts_with("moe.permute") || name == "moe.preprocess") &&
      name.find(".bwd") == std::string_view::npos)
    return scope(GraphScope::moe_preprocess);
  return -1;
}

void apply_cuda_graphs(std::vector<Op>& ops, const CudaGraphs& g, GraphedLayer layer) {
  if (g.none()) return;
  bool sync_pending = false;
  for (Op& op : ops) {
    op.graph_scope = captured_by(g, op.name, layer);
    if (op.graph_scope >= 0 && op.host_sync) {
      op.host_sync = false;
      sync_pending = !g.has(GraphScope::full_iteration);
    } else if (op.graph_scope < 0 && sync_pending) {
      op.host_sync = true;
      sync_pending = false;
    }
  }
}

}  // namespace trainsim
