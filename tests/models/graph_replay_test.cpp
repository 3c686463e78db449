// A CUDA graph's replay over a layer's ops (models/graph_replay.hpp): which captured ops start
// a replay, and how many tensors the replay copies into the graph's static buffers.

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "models/cuda_graphs.hpp"
#include "models/graph_replay.hpp"
#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"

namespace trainsim {
namespace {

PassOps qwen3_layer(std::initializer_list<GraphScope> list, MoeDispatcher dispatcher) {
  ModelSpec m = *model_preset("qwen3-30b-a3b");
  m.seq_len = 4096;
  TrainingSpec tr;
  for (const GraphScope s : list) tr.cuda_graphs.add(s);
  ParallelSpec p;
  p.ep = 8;
  p.dp = 8;
  p.moe_dispatcher = dispatcher;
  return transformer_layer_ops(m, tr, p);
}

// The ops of `pass` that start a replay, with the copies each makes.
std::vector<int> replays(const std::vector<Op>& pass) {
  std::vector<int> copies;
  for (std::size_t i = 0; i < pass.size(); ++i)
    if (pass[i].graph_scope >= 0 && !continues_graph(pass, i)) copies.push_back(graph_replay_copies(pass, i));
  return copies;
}

// Megatron-Core makes one graphed callable per layer of all its per-layer scopes
// (transformer_layer.py @ d48bd6be): attn, moe_router and moe_preprocess replay once a pass.
// The forward copies the layer's input; the backward the gradients of the hidden states, the
// probabilities and the residual the graph hands the eager experts.
TEST(GraphReplay, ALayersScopesReplayAsOneGraph) {
  const PassOps ops =
      qwen3_layer({GraphScope::attn, GraphScope::moe_router, GraphScope::moe_preprocess}, MoeDispatcher::hybridep);
  EXPECT_EQ(replays(ops.forward), std::vector<int>{1});
  EXPECT_EQ(replays(ops.backward), std::vector<int>{3});
}

// The attention alone ends at its output: one gradient copied back. A padded layer's attn and
// moe scopes are the whole layer: likewise one.
TEST(GraphReplay, AGraphEndingAtAnOutputCopiesOneGradient) {
  const PassOps attn = qwen3_layer({GraphScope::attn}, MoeDispatcher::hybridep);
  EXPECT_EQ(replays(attn.forward), std::vector<int>{1});
  EXPECT_EQ(replays(attn.backward), std::vector<int>{1});
  TrainingSpec tr;
  tr.cuda_graphs.add(GraphScope::attn);
  tr.cuda_graphs.add(GraphScope::mlp);
  const PassOps dense = transformer_layer_ops(*model_preset("llama3-8b"), tr, ParallelSpec{});
  EXPECT_EQ(replays(dense.forward), std::vector<int>{1});
  EXPECT_EQ(replays(dense.backward), std::vector<int>{1});
}

// The alltoall dispatcher's count copies (moe.dtoh) run after the preprocess graph: the
// permutation listed after them is still that graph, not a second replay.
TEST(GraphReplay, TheCountCopiesDoNotSplitThePreprocessGraph) {
  const PassOps ops = qwen3_layer({GraphScope::moe_router, GraphScope::moe_preprocess}, MoeDispatcher::alltoall);
  EXPECT_EQ(replays(ops.forward), std::vector<int>{1});
  std::size_t permute = 0;
  while (ops.forward[permute].name != "moe.permute") ++permute;
  EXPECT_EQ(ops.forward[permute - 1].name, "moe.dtoh");
  EXPECT_TRUE(continues_graph(ops.forward, permute));
  EXPECT_EQ(graph_replay_copies(ops.forward, permute), 0);
}

// Eager ops and a full-iteration graph copy nothing here (its static buffers are loaded once a
// micro-batch: sim/step/fixed_costs.hpp).
TEST(GraphReplay, EagerAndFullIterationOpsCopyNothing) {
  const PassOps eager = qwen3_layer({}, MoeDispatcher::hybridep);
  EXPECT_TRUE(replays(eager.forward).empty());
  EXPECT_EQ(graph_replay_copies(eager.forward, 0), 0);
  const PassOps full = qwen3_layer({GraphScope::full_iteration}, MoeDispatcher::hybridep);
  EXPECT_EQ(replays(full.forward), std::vector<int>{0});
  EXPECT_TRUE(continues_graph(full.forward, 1));
}

}  // namespace
}  // namespace trainsim
