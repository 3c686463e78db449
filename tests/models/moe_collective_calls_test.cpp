// Where the host calls an MoE layer's collectives among its ops on Megatron-Core's alltoall
// dispatcher (models/moe_collective_calls.hpp, token_dispatcher.py @ 0d8e0714): the same
// collectives the step times on the links (add_layer_expert_comm, sim/step/stage_costs.cpp).

#include <gtest/gtest.h>

#include <string>

#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"
#include "tests/models/find_op.hpp"
#include "tests/models/qwen3_moe.hpp"

namespace trainsim {
namespace {

using testing::find_op;

ModelSpec qwen3(bool padded) { return testing::qwen3_moe(padded); }

int calls_of(const std::vector<Op>& ops) {
  int calls = 0;
  for (const Op& op : ops) calls += op.collective_calls;
  return calls;
}

// The op right after the one named `name`.
const Op* after(const std::vector<Op>& ops, const std::string& name) {
  for (std::size_t i = 0; i + 1 < ops.size(); ++i)
    if (ops[i].name == name) return &ops[i + 1];
  return nullptr;
}

// Forward: the counts' all-gather in the preprocess (dropless only), the dispatch's two
// all-to-alls (tokens, probabilities) after the sync, the combine's one before the unpermute;
// backward: their gradients, in reverse, and no gradient for the integer counts.
TEST(MoeCollectiveCalls, TheDispatchersCallsSitWhereMegatronCoreMakesThem) {
  ParallelSpec p;
  p.ep = 8;
  const TrainingSpec t;
  for (const bool padded : {false, true}) {
    const PassOps ops = transformer_layer_ops(qwen3(padded), t, p);
    EXPECT_EQ(find_op(ops.forward, "moe.preprocess")->collective_calls, padded ? 0 : 1);
    const Op* dispatched = after(ops.forward, "moe.permute");
    ASSERT_NE(dispatched, nullptr);
    // 16 local experts: the received chunks are sorted first (a fixed reshape when padded).
    EXPECT_EQ(dispatched->name, padded ? "experts.reshape" : "experts.sort");
    EXPECT_EQ(dispatched->collective_calls, 2);
    EXPECT_EQ(find_op(ops.forward, "moe.unpermute")->collective_calls, 1);
    EXPECT_EQ(calls_of(ops.forward), padded ? 3 : 4);
    EXPECT_EQ(after(ops.backward, "moe.unpermute.bwd")->collective_calls, 1);
    EXPECT_EQ(find_op(ops.backward, "moe.permute.bwd")->collective_calls, 2);
    EXPECT_EQ(calls_of(ops.backward), 3);
  }
}

// One expert rank: _AllToAll returns its input and the counts need no gather; the flex
// dispatcher's DeepEP and HybridEP kernels are no c10d calls; expert TP adds the tokens' and
// probabilities' all-gathers and the outputs' reduce-scatter, and their gradients.
TEST(MoeCollectiveCalls, OnlyRealCallsAreCounted) {
  const TrainingSpec t;
  ParallelSpec one;
  one.ep = 1;
  const PassOps alone = transformer_layer_ops(qwen3(false), t, one);
  EXPECT_EQ(calls_of(alone.forward) + calls_of(alone.backward), 0);
  ParallelSpec flex;
  flex.ep = 8;
  flex.moe_dispatcher = MoeDispatcher::hybridep;
  const PassOps fused = transformer_layer_ops(qwen3(false), t, flex);
  EXPECT_EQ(calls_of(fused.forward) + calls_of(fused.backward), 0);
  ParallelSpec etp;
  etp.ep = 4;
  etp.tp = 2;
  etp.sequence_parallel = true;
  const PassOps split = transformer_layer_ops(qwen3(false), t, etp);
  EXPECT_EQ(calls_of(split.forward), 1 + 4 + 2);
  EXPECT_EQ(calls_of(split.backward), 2 + 4);
}

// A recomputed forward calls them again.
TEST(MoeCollectiveCalls, ARecomputedForwardCallsThemAgain) {
  ParallelSpec p;
  p.ep = 8;
  TrainingSpec t;
  t.recompute = Recompute::full;
  const PassOps ops = transformer_layer_ops(qwen3(false), t, p);
  EXPECT_EQ(calls_of(ops.recompute), 4);
}

}  // namespace
}  // namespace trainsim
