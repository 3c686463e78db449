// Token dropping as Megatron-Core runs it (models/expert_capacity.hpp): the capacity
// arithmetic of get_capacity, the padded rows, the pairs the caps drop, and the layer's ops
// with static shapes (no host sync, a reshape for the chunk sort).

#include <gtest/gtest.h>

#include <string>

#include "models/activation_memory.hpp"
#include "models/expert_capacity.hpp"
#include "models/expert_load.hpp"
#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"
#include "tests/models/find_op.hpp"

namespace trainsim {
namespace {

using testing::find_op;

// Megatron-Core's get_capacity: ceil(tokens x top_k / experts x factor).
TEST(ExpertCapacity, CeilOfTheBalancedShareTimesTheFactor) {
  EXPECT_EQ(expert_capacity(4096, 128, 8, 1.0), 256);   // Qwen3 30B-A3B, 4,096 tokens
  EXPECT_EQ(expert_capacity(4096, 128, 8, 1.25), 320);
  EXPECT_EQ(expert_capacity(1000, 64, 6, 1.0), 94);     // 93.75 rounds up
  EXPECT_EQ(expert_capacity(1000, 64, 6, 0.5), 47);     // 46.875
  EXPECT_EQ(expert_capacity(4096, 256, 8, 1.0), 128);   // DeepSeek-V3
}

ModelSpec qwen3(double capacity_factor, bool pad) {
  ModelSpec m = *model_preset("qwen3-30b-a3b");
  m.seq_len = 4096;
  m.capacity_factor = capacity_factor;
  m.pad_to_capacity = pad;
  return m;
}

TEST(ExpertCapacity, PaddedRowsOverTheBalancedRows) {
  EXPECT_DOUBLE_EQ(padded_row_share(qwen3(0, false), 4096), 1.0);     // dropless
  EXPECT_DOUBLE_EQ(padded_row_share(qwen3(1.25, false), 4096), 1.0);  // dropping, unpadded
  EXPECT_DOUBLE_EQ(padded_row_share(qwen3(1.25, true), 4096), 1.25);
  EXPECT_DOUBLE_EQ(padded_row_share(qwen3(1.0, true), 4096), 1.0);
  // The ceiling: 1,000 tokens, top 8 of 128 at factor 1: 63 rows an expert for 62.5.
  EXPECT_DOUBLE_EQ(padded_row_share(qwen3(1.0, true), 1000), 63.0 * 128 / 8000);
}

TEST(ExpertCapacity, StaticShapesOnlyWhenPaddedOrBudgeted) {
  EXPECT_FALSE(static_expert_shapes(qwen3(0, false)));
  EXPECT_FALSE(static_expert_shapes(qwen3(1.0, false)));  // counts still vary: the sync stays
  EXPECT_FALSE(static_expert_shapes(qwen3(0, true)));     // padding needs a factor
  EXPECT_TRUE(static_expert_shapes(qwen3(1.0, true)));
  ModelSpec budget = qwen3(0, false);
  budget.rank_capacity_factor = 1.5;
  EXPECT_TRUE(static_expert_shapes(budget));
  ModelSpec dense = *model_preset("llama3-8b");
  dense.capacity_factor = 1.0;
  dense.pad_to_capacity = true;
  EXPECT_FALSE(static_expert_shapes(dense));
}

ParallelSpec ep8() {
  ParallelSpec p;
  p.ep = 8;
  p.dp = 8;
  return p;
}

// Balanced routing: a factor below 1 drops 1 - factor of the pairs on every rank; above 1
// nothing. A stated busiest load: the other ranks share the rest evenly, under the cap here.
TEST(ExpertCapacity, KeptPairsUnderTheCaps) {
  const ExpertLoads half = expert_loads(qwen3(0.5, false), ep8(), 1);
  EXPECT_DOUBLE_EQ(half.busiest_rank, 0.5);
  EXPECT_DOUBLE_EQ(half.kept, 0.5);
  const ExpertLoads roomy = expert_loads(qwen3(1.25, true), ep8(), 1);
  EXPECT_DOUBLE_EQ(roomy.busiest_rank, 1.0);
  EXPECT_DOUBLE_EQ(roomy.kept, 1.0);
  ModelSpec stated = qwen3(1.2, false);
  stated.router_load = 1.5;
  const ExpertLoads s = expert_loads(stated, ep8(), 1);
  EXPECT_DOUBLE_EQ(s.busiest_rank, 1.2);
  EXPECT_DOUBLE_EQ(s.kept, 1.0 - 0.3 / 8);
  // Drawn loads: the capped ones lose pairs, never more than the cap allows.
  ModelSpec drawn = qwen3(1.0, false);
  drawn.expert_imbalance = 0.5;
  const ExpertLoads d = expert_loads(drawn, ep8(), 7);
  EXPECT_LT(d.kept, 1.0);
  EXPECT_GT(d.kept, 0.5);
  EXPECT_LE(d.busiest_rank, 1.0);
  drawn.rank_capacity_factor = 0.9;  // a rank budget under it caps the ranks too
  EXPECT_LE(expert_loads(drawn, ep8(), 7).busiest_rank, 0.9);
  EXPECT_LT(expert_loads(drawn, ep8(), 7).kept, d.kept);
}

// Padded, the expert rows are the capacity's whatever the routing; unpadded the busiest rank's.
TEST(ExpertCapacity, RowLoadIsThePaddedShareWhenPadding) {
  TrainingSpec tr;
  tr.micro_batch = 1;
  ModelSpec padded = qwen3(1.25, true);
  padded.router_load = 1.1;
  EXPECT_DOUBLE_EQ(expert_row_load(padded, tr, ep8(), 1), 1.25);
  ModelSpec unpadded = qwen3(1.25, false);
  unpadded.router_load = 1.1;
  EXPECT_DOUBLE_EQ(expert_row_load(unpadded, tr, ep8(), 1), 1.1);
}

PassOps qwen3_ops(const ModelSpec& m) {
  TrainingSpec tr;
  return transformer_layer_ops(m, tr, ep8());
}

// Dropless (and dropping without padding) the dispatch waits on the host for the counts and
// the received chunks are sorted; padded, no sync and a fixed-shape reshape instead.
TEST(ExpertCapacity, PaddedLayerHasNoHostSyncAndReshapesInsteadOfSorting) {
  for (const ModelSpec& m : {qwen3(0, false), qwen3(1.0, false)}) {
    const PassOps ops = qwen3_ops(m);
    ASSERT_NE(find_op(ops.forward, "moe.permute"), nullptr);
    EXPECT_TRUE(find_op(ops.forward, "moe.permute")->host_sync);
    EXPECT_NE(find_op(ops.forward, "experts.sort"), nullptr);
    EXPECT_EQ(find_op(ops.forward, "experts.reshape"), nullptr);
  }
  const PassOps padded = qwen3_ops(qwen3(1.0, true));
  for (const auto* pass : {&padded.forward, &padded.recompute, &padded.backward})
    for (const Op& op : *pass) EXPECT_FALSE(op.host_sync) << op.name;
  EXPECT_EQ(find_op(padded.forward, "experts.sort"), nullptr);
  ASSERT_NE(find_op(padded.forward, "experts.reshape"), nullptr);
  EXPECT_EQ(find_op(padded.forward, "experts.reshape")->kernels, 2);  // tokens and probabilities
  EXPECT_EQ(find_op(padded.forward, "experts.unreshape")->kernels, 1);
  // The sender permutes into the padded rows: 1.25 x the dropless bytes out.
  const PassOps dropless_ops = qwen3_ops(qwen3(0, false));
  const PassOps roomy_ops = qwen3_ops(qwen3(1.25, true));
  const Op* dropless = find_op(dropless_ops.forward, "moe.permute");
  const Op* roomy = find_op(roomy_ops.forward, "moe.permute");
  const double in = 4096.0 * 2048 * 2;
  EXPECT_DOUBLE_EQ(roomy->bytes - in, 1.25 * (dropless->bytes - in));
}

TEST(ExpertCapacity, DroppedPairsLeaveModelFlopsOnly) {
  std::vector<Op> ops = qwen3_ops(qwen3(0.5, true)).forward;
  const Op up = *find_op(ops, "experts.up");
  const Op attention = *find_op(ops, "qkv");
  keep_routed_model_flops(ops, 0.5);
  EXPECT_DOUBLE_EQ(find_op(ops, "experts.up")->model_flops, 0.5 * up.model_flops);
  EXPECT_DOUBLE_EQ(find_op(ops, "experts.up")->flops, up.flops);
  EXPECT_DOUBLE_EQ(find_op(ops, "qkv")->model_flops, attention.model_flops);
}

// The MoE MLP's activations are kept at the padded rows, or at the rank budget's buffer.
TEST(ExpertCapacity, ActivationsAtThePaddedSize) {
  ActivationLayout l;
  const double dropless = layer_activation_bytes(qwen3(0, false), l);
  const double padded = layer_activation_bytes(qwen3(1.25, true), l);
  ModelSpec budget = qwen3(0, false);
  budget.rank_capacity_factor = 1.5;
  const double budgeted = layer_activation_bytes(budget, l);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(qwen3(1.25, false), l), dropless);
  // SwiGLU keeps 4 + 2 bytes a width element, top 8 of experts 768 wide, over 4,096 tokens.
  const double routed = 6.0 * 4096 * 768 * 8;
  EXPECT_NEAR(padded - dropless, 0.25 * routed, 1.0);
  EXPECT_NEAR(budgeted - dropless, 0.5 * routed, 1.0);
}

}  // namespace
}  // namespace trainsim
