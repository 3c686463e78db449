#pragma once
// How a CUDA graph's replay spans a layer's ops and what it copies (training.cuda_graphs,
// models/cuda_graphs.hpp): the host's side of a replay, priced in sim/step/host_bound_pass.hpp.

#include <cstddef>
#include <vector>

#include "models/op.hpp"

namespace trainsim {

/// Whether `ops[i]` continues the graph an earlier op of the same pass began, so that one replay
/// launches both. Megatron-Core's Transformer Engine path makes one graphed callable per layer of
/// every per-layer scope it captures (megatron/core/transformer/transformer_layer.py @ d48bd6be,
/// _te_cuda_graph_capture runs the attention and the MLP or router part in one function, and
/// _te_cuda_graph_replay calls self.cuda_graphs[microbatch] once): captured ops of any per-layer
/// scopes in a row are one graph, as is a full_iteration graph. The counts' device-to-host copies
/// (moe.dtoh), issued after the preprocess graph though listed before the permutation it
/// captures, do not break it. False for an eager op and for a pass's first captured op.
bool continues_graph(const std::vector<Op>& ops, std::size_t i);

/// The tensors a per-layer graph's replay copies into its static buffers before launching, each
/// a torch copy_ the host issues (Transformer Engine's make_graphed_callables, graph.py @ v2.14,
/// Graphed.forward: every user input whose storage is not the captured one; Graphed.backward:
/// every incoming output gradient likewise). Forward (and recomputed): 1, the layer's input
/// hidden states, a fresh tensor from the eager part of the layer before. Backward: the gradients
/// of the graph's outputs, 3 where it ends at the router or the dispatcher's preprocess (the
/// hidden states the experts take, the routing probabilities, the residual: transformer_layer.py
/// @ d48bd6be, _te_cuda_graph_replay_impl), else 1 (the attention's or the layer's output).
/// 0 for an op that starts no per-layer graph (eager, continuing, full_iteration). `ops[first]`
/// is the graph's first op.
int graph_replay_copies(const std::vector<Op>& ops, std::size_t first);

}  // namespace trainsim
