// CUDA graph scopes (training.cuda_graphs, models/cuda_graphs.hpp): which of a layer's ops each
// scope captures, and where the dispatcher's host sync goes when its op is captured.

#include <gtest/gtest.h>

#include <string>

#include "models/cuda_graphs.hpp"
#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"
#include "tests/models/find_op.hpp"

namespace trainsim {
namespace {

using testing::find_op;

CudaGraphs scopes(std::initializer_list<GraphScope> list) {
  CudaGraphs g;
  for (const GraphScope s : list) g.add(s);
  return g;
}

PassOps qwen3_layer(const CudaGraphs& g) {
  ModelSpec m = *model_preset("qwen3-30b-a3b");
  m.seq_len = 4096;
  TrainingSpec tr;
  tr.cuda_graphs = g;
  ParallelSpec p;
  p.ep = 8;
  p.dp = 8;
  return transformer_layer_ops(m, tr, p);
}

int scope_of(const PassOps& ops, const std::string& name) {
  const Op* op = find_op(ops.forward, name);
  if (op == nullptr) op = find_op(ops.backward, name);
  EXPECT_NE(op, nullptr) << name;
  return op ? op->graph_scope : -2;
}

TEST(CudaGraphs, ScopesCaptureTheirBlocksForwardAndBackward) {
  const PassOps ops = qwen3_layer(scopes({GraphScope::attn, GraphScope::moe_router}));
  const int attn = static_cast<int>(GraphScope::attn), router = static_cast<int>(GraphScope::moe_router);
  for (const char* name : {"attention.norm", "qkv", "attention", "attention.proj", "attention.residual",
                           "attention.bwd", "qkv.dgrad", "qkv.wgrad"})
    EXPECT_EQ(scope_of(ops, name), attn) << name;
  for (const char* name : {"mlp.norm", "router", "router.topk", "router.aux_loss", "router.dgrad", "mlp.norm.bwd"})
    EXPECT_EQ(scope_of(ops, name), router) << name;
  // The experts and the dispatcher's permutes stay eager; without moe_preprocess the sync stays.
  for (const char* name : {"moe.permute", "experts.up", "experts.sort", "moe.unpermute", "mlp.residual"})
    EXPECT_EQ(scope_of(ops, name), -1) << name;
  EXPECT_TRUE(find_op(ops.forward, "moe.permute")->host_sync);
}

TEST(CudaGraphs, CapturedPreprocessMovesTheSyncAfterItsGraph) {
  const PassOps ops = qwen3_layer(scopes({GraphScope::moe_router, GraphScope::moe_preprocess}));
  const Op* permute = find_op(ops.forward, "moe.permute");
  EXPECT_EQ(permute->graph_scope, static_cast<int>(GraphScope::moe_preprocess));
  EXPECT_FALSE(permute->host_sync);
  EXPECT_TRUE(find_op(ops.forward, "experts.sort")->host_sync);
  int syncs = 0;
  for (const Op& op : ops.forward) syncs += op.host_sync ? 1 : 0;
  EXPECT_EQ(syncs, 1);
  // The permute's gradient runs in the backward, outside the preprocess graph.
  EXPECT_EQ(find_op(ops.backward, "moe.permute.bwd")->graph_scope, -1);
}

TEST(CudaGraphs, ReceiverPermutesOfDeepEpStayOutsideThePreprocessGraph) {
  ModelSpec m = *model_preset("qwen3-30b-a3b");
  m.seq_len = 4096;
  TrainingSpec tr;
  tr.cuda_graphs = scopes({GraphScope::moe_router, GraphScope::moe_preprocess});
  ParallelSpec p;
  p.ep = 8;
  p.dp = 8;
  p.moe_dispatcher = MoeDispatcher::deepep;
  const PassOps ops = transformer_layer_ops(m, tr, p);
  const Op* permute = find_op(ops.forward, "moe.permute");
  EXPECT_EQ(permute->graph_scope, -1);
  EXPECT_TRUE(permute->host_sync);
  EXPECT_EQ(find_op(ops.forward, "router")->graph_scope, static_cast<int>(GraphScope::moe_router));
}

TEST(CudaGraphs, FullIterationCapturesEveryOpAndNoSyncRemains) {
  const PassOps ops = qwen3_layer(scopes({GraphScope::full_iteration}));
  for (const std::vector<Op>* pass : {&ops.forward, &ops.backward})
    for (const Op& op : *pass) {
      EXPECT_EQ(op.graph_scope, static_cast<int>(GraphScope::full_iteration)) << op.name;
      EXPECT_FALSE(op.host_sync) << op.name;
    }
}

TEST(CudaGraphs, MlpCapturesDenseLayersOnlyAndNoneCapturesNothing) {
  TrainingSpec tr;
  tr.cuda_graphs = scopes({GraphScope::mlp});
  const PassOps dense = transformer_layer_ops(*model_preset("llama3-8b"), tr, ParallelSpec{});
  EXPECT_EQ(find_op(dense.forward, "mlp.up")->graph_scope, static_cast<int>(GraphScope::mlp));
  EXPECT_EQ(find_op(dense.forward, "qkv")->graph_scope, -1);
  const PassOps moe = qwen3_layer(scopes({GraphScope::mlp}));
  for (const Op& op : moe.forward) EXPECT_EQ(op.graph_scope, -1) << op.name;
  for (const Op& op : qwen3_layer(CudaGraphs{}).forward) EXPECT_EQ(op.graph_scope, -1) << op.name;
}

// The moe scope (drop-and-pad only): the MoE layer's whole MLP block, experts and
// permutations included, forward and backward; the attention stays with attn.
TEST(CudaGraphs, MoeScopeCapturesThePaddedMlpBlock) {
  ModelSpec m = *model_preset("qwen3-30b-a3b");
  m.seq_len = 4096;
  m.capacity_factor = 1.0;
  m.pad_to_capacity = true;
  TrainingSpec tr;
  tr.cuda_graphs = scopes({GraphScope::attn, GraphScope::moe});
  ParallelSpec p;
  p.ep = 8;
  p.dp = 8;
  const PassOps ops = transformer_layer_ops(m, tr, p);
  const int moe = static_cast<int>(GraphScope::moe), attn = static_cast<int>(GraphScope::attn);
  for (const char* name : {"mlp.norm", "router", "moe.permute", "experts.reshape", "experts.up", "experts.down",
                           "moe.unpermute", "mlp.residual", "experts.up.dgrad", "experts.up.wgrad"})
    EXPECT_EQ(scope_of(ops, name), moe) << name;
  EXPECT_EQ(scope_of(ops, "qkv"), attn);
  for (const Op& op : ops.forward) EXPECT_FALSE(op.host_sync) << op.name;
  EXPECT_EQ(graph_scopes_text(tr.cuda_graphs), "attn+moe");
}

TEST(CudaGraphs, ScopesReadBackAsWritten) {
  EXPECT_EQ(graph_scopes_text(CudaGraphs{}), "none");
  EXPECT_EQ(graph_scopes_text(scopes({GraphScope::moe_preprocess, GraphScope::attn, GraphScope::moe_router})),
            "attn+moe_router+moe_preprocess");
}

}  // namespace
}  // namespace trainsim
