// GPT-OSS's eager passes (models/eager_passes.hpp): unfused YaRN RoPE, the GLU's input clamp
// and the experts' second bias, priced by the bytes and kernels of the torch ops Megatron-Core
// @ 92c8482e runs, on GPT-OSS 120B's layer; a model without the features keeps its ops.

#include <gtest/gtest.h>

#include "models/eager_passes.hpp"
#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"
#include "tests/models/find_op.hpp"

namespace trainsim {
namespace {

using testing::find_op;

ModelSpec gpt_oss() {
  ModelSpec m = *model_preset("gpt-oss-120b");
  m.seq_len = 4096;
  return m;
}

ModelSpec without_features(ModelSpec m) {
  m.rope_scaling = RopeScaling::none;
  m.activation_clamp = 0;
  m.bias = false;
  return m;
}

ParallelSpec ep8() {
  ParallelSpec p;
  p.ep = 8;
  return p;
}

TEST(EagerPasses, ThePresetCarriesTheRecipesFeatures) {
  const ModelSpec m = gpt_oss();
  EXPECT_EQ(m.rope_scaling, RopeScaling::yarn);  // config.json rope_scaling.rope_type
  EXPECT_EQ(m.activation_clamp, 7);              // config.json swiglu_limit
  EXPECT_TRUE(m.bias);
}

TEST(EagerPasses, PassCountsAreTheTorchOpsSums) {
  // RoPE: forward mul, neg (half), cat, mul, add, cat = 2 + 1 + 2 + 2 + 3 + 2; backward
  // mul, mul, neg, cat, add, zeros + copy = 2 + 2 + 1 + 2 + 3 + 3.
  EXPECT_EQ(unfused_rope_pass().forward_bytes, 12);
  EXPECT_EQ(unfused_rope_pass().backward_bytes, 13);
  EXPECT_EQ(unfused_rope_pass().forward_kernels, 12);
  EXPECT_EQ(activation_clamp_pass().forward_bytes, 4);
  EXPECT_EQ(activation_clamp_pass().forward_kernels, 3);
  // Per expert two ops and one concatenation forward; two products and two reductions back.
  EXPECT_EQ(expert_bias_pass(16).forward_kernels, 33);
  EXPECT_EQ(expert_bias_pass(16).backward_kernels, 64);
  EXPECT_EQ(expert_bias_pass(2).forward_bytes, 6);
}

TEST(EagerPasses, UnfusedRopeReplacesTheFusedKernel) {
  TrainingSpec tr;
  const ModelSpec m = gpt_oss();
  const PassOps plain = transformer_layer_ops(without_features(m), tr, ep8());
  const PassOps yarn = transformer_layer_ops(m, tr, ep8());
  // The query's 64 heads and the key's 8, of 64 each, over 4,096 tokens in bf16.
  const double qk = 4096.0 * (64 + 8) * 64 * 2;
  const Op* fused = find_op(plain.forward, "attention.rope");
  const Op* eager = find_op(yarn.forward, "attention.rotary_eager");
  EXPECT_EQ(find_op(yarn.forward, "attention.rope"), nullptr);
  ASSERT_TRUE(fused && eager);
  EXPECT_DOUBLE_EQ(fused->bytes, 2 * qk);
  EXPECT_DOUBLE_EQ(eager->bytes, 12 * qk);
  EXPECT_EQ(eager->kernels, 24);  // the query's call and the key's
  EXPECT_EQ(eager->calls, 24);
  const Op* back = find_op(yarn.backward, "attention.rotary_eager.bwd");
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ(back->bytes, 13 * qk);
  EXPECT_EQ(back->calls, 1);  // the autograd engine launches the rest
}

TEST(EagerPasses, ClampAndBiasSitBesideTheExperts) {
  TrainingSpec tr;
  const ModelSpec m = gpt_oss();
  const PassOps ops = transformer_layer_ops(m, tr, ep8());
  // Rows: 4,096 tokens x top-4 (each rank runs as many rows as it dispatches, on balance).
  const double rows = 4096.0 * 4;
  const Op* clamp = find_op(ops.forward, "experts.clamp");
  const Op* bias = find_op(ops.forward, "experts.bias");
  ASSERT_TRUE(clamp && bias);
  EXPECT_DOUBLE_EQ(clamp->bytes, 4 * rows * 2 * 2880 * 2);  // fc1's gate and linear halves
  EXPECT_DOUBLE_EQ(bias->bytes, 6 * rows * 2880 * 2);       // fc2's output
  EXPECT_EQ(bias->kernels, 2 * 16 + 1);                       // 128 experts over EP 8
  // Order: clamp right before the activation, bias right after the down projection; backward
  // the mirror image.
  const auto index = [](const std::vector<Op>& pass, const std::string& name) {
    for (size_t i = 0; i < pass.size(); ++i)
      if (pass[i].name == name) return static_cast<long>(i);
    return -1L;
  };
  EXPECT_EQ(index(ops.forward, "experts.clamp") + 1, index(ops.forward, "experts.activation"));
  EXPECT_EQ(index(ops.forward, "experts.down") + 1, index(ops.forward, "experts.bias"));
  EXPECT_EQ(index(ops.backward, "experts.activation.bwd") + 1, index(ops.backward, "experts.clamp.bwd"));
  EXPECT_EQ(index(ops.backward, "experts.bias.bwd") + 1, index(ops.backward, "experts.down.dgrad"));
}

TEST(EagerPasses, FullRecomputationRepeatsTheForwardPasses) {
  TrainingSpec tr;
  tr.recompute = Recompute::full;
  const PassOps ops = transformer_layer_ops(gpt_oss(), tr, ep8());
  const Op* again = find_op(ops.recompute, "experts.clamp");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->pass, OpPass::recompute);
  ASSERT_TRUE(find_op(ops.recompute, "experts.bias"));
}

TEST(EagerPasses, AModelWithoutTheFeaturesKeepsItsOps) {
  TrainingSpec tr;
  const ModelSpec plain = without_features(gpt_oss());
  const PassOps ops = transformer_layer_ops(plain, tr, ep8());
  EXPECT_EQ(find_op(ops.forward, "experts.clamp"), nullptr);
  EXPECT_EQ(find_op(ops.forward, "experts.bias"), nullptr);
  // A dense model with biases (GPT-3 style) has no experts' bias pass either.
  ModelSpec dense = *model_preset("gpt-oss-120b");
  dense.experts = 1;
  dense.top_k = 1;
  const PassOps dense_ops = transformer_layer_ops(dense, tr, ParallelSpec{});
  EXPECT_EQ(find_op(dense_ops.forward, "experts.bias"), nullptr);
  EXPECT_EQ(find_op(dense_ops.forward, "experts.clamp"), nullptr);
}

// bias_dropout_fusion off (GPTOSSProvider): the attention's output bias is one more add over
// the projection's output, [T, h] read and written (and the bias read), forward only; a dense
// MLP's second bias the same after mlp.down. Fused, or without biases, no such op.
TEST(EagerPasses, UnfusedBiasDropoutAddAddsTheBiasOnItsOwn) {
  TrainingSpec tr;
  tr.bias_dropout_fusion = false;
  const ModelSpec m = gpt_oss();
  const PassOps ops = transformer_layer_ops(m, tr, ep8());
  const Op* bias = find_op(ops.forward, "attention.proj_bias");
  ASSERT_TRUE(bias);
  const double act = 4096.0 * m.hidden * 2.0;
  EXPECT_DOUBLE_EQ(bias->bytes, 2.0 * act + m.hidden * 2.0);
  EXPECT_EQ(bias->kernels, 1);
  const auto index = [](const std::vector<Op>& v, const std::string& name) {
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i].name == name) return static_cast<int>(i);
    return -1;
  };
  EXPECT_EQ(index(ops.forward, "attention.proj") + 1, index(ops.forward, "attention.proj_bias"));
  EXPECT_EQ(find_op(ops.backward, "attention.proj_bias.bwd"), nullptr);
  EXPECT_EQ(find_op(ops.forward, "mlp.down_bias"), nullptr);  // MoE layers return no bias
  TrainingSpec fused;
  EXPECT_EQ(find_op(transformer_layer_ops(m, fused, ep8()).forward, "attention.proj_bias"), nullptr);
  EXPECT_EQ(find_op(transformer_layer_ops(without_features(m), tr, ep8()).forward, "attention.proj_bias"), nullptr);
  ModelSpec dense = m;
  dense.experts = 1;
  dense.top_k = 1;
  ASSERT_TRUE(find_op(transformer_layer_ops(dense, tr, ParallelSpec{}).forward, "mlp.down_bias"));
}

}  // namespace
}  // namespace trainsim
