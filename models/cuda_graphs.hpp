#pragma once
// CUDA graphs as Megatron-Core captures them (training.cuda_graphs; Megatron-LM's
// --cuda-graph-impl transformer_engine --cuda-graph-scope, NVIDIA/Megatron-LM
// docs/discussions/deepseek-v3-gb200-optimization @ eb0783b6, public.md D5): a captured
// region replays all its kernels, forward and backward, from one launch, so the host pays one
// dispatch for it instead of one per op and per kernel (sim/step/host_bound_pass.hpp); its
// kernels take the GPU time they take eagerly.
//
// Scopes, by the ops of `trainsim layer` they capture:
//   attn            the attention block: its norm, projections (MLA's too), rotary, core
//                   attention and residual;
//   mlp             a dense layer's MLP block (DeepSeek-V3's first three layers);
//   moe_router      an MoE layer's pre-MLP norm, router and its kernels, and the shared experts;
//   moe_preprocess  the dispatcher's preprocess and permute before the all-to-all (with
//                   moe_router, as Megatron-Core requires); the host's wait for the token counts
//                   moves to the first op after the graph;
//   moe             an MoE layer's whole MLP block: norm, router, shared experts, permutations,
//                   experts and residual (Megatron-Core's CudaGraphModule.moe: only with
//                   drop-and-pad, whose shapes are static, and not with moe_router;
//                   transformer_config.py @ d98e8a64; sim/scenario/token_drop_fields.hpp);
//   full_iteration  every op of the forward and backward (Megatron-Core's local
//                   implementation), so no host sync may remain: refused for dropless MoE
//                   (sim/scenario/token_drop_fields.cpp).

#include <string>
#include <string_view>
#include <vector>

namespace trainsim {

struct Op;  // models/op.hpp, which includes this file through training_spec.hpp

enum class GraphScope { attn, mlp, moe_router, moe_preprocess, moe, full_iteration };

/// The scopes a run captures: none by default (Megatron-Core's cuda_graph_impl = "none").
struct CudaGraphs {
  unsigned scopes = 0;

  bool has(GraphScope s) const { return (scopes & bit(s)) != 0; }
  void add(GraphScope s) { scopes |= bit(s); }
  bool none() const { return scopes == 0; }
  bool operator==(const CudaGraphs&) const = default;

 private:
  static unsigned bit(GraphScope s) { return 1U << static_cast<unsigned>(s); }
};

/// The scope names as Megatron-Core spells them, in enum order.
const std::vector<std::string>& graph_scope_names();

/// "none", or the scopes joined by '+' (a value a sweep's list and a CSV cell keep whole).
std::string graph_scopes_text(const CudaGraphs& g);

/// What of a layer decides which scope captures an op: whether it is an MoE layer, and
/// whether its dispatcher permutes on the sender before the all-to-all (Megatron-Core's
/// alltoall dispatcher; DeepEP and HybridEP permute on the receiver, after it, outside the
/// preprocess graph).
struct GraphedLayer {
  bool moe = false;
  bool sender_permutes = true;
};

/// The scope whose graph captures the op named `name` of `layer` under `g`, or -1 when the
/// op is launched eagerly.
int captured_by(const CudaGraphs& g, std::string_view name, GraphedLayer layer);

/// Marks each of `ops` (one layer's pass, in launch order) with the scope capturing it
/// (Op::graph_scope) and moves a captured op's host sync to the first op after its graph
/// (none under full_iteration).
void apply_cuda_graphs(std::vector<Op>& ops, const CudaGraphs& g, GraphedLayer layer);

}  // namespace trainsim
