// Per-layer activation bytes against Korthikanti et al. 2022, Table 2 and eqs. 1, 2, 4
// (../shared/validation/public.md B2).

#include <gtest/gtest.h>

#include "models/activation_memory.hpp"
#include "models/model_presets.hpp"

namespace trainsim {
namespace {

// GPT-3 175B as in the paper: MHA, GeLU MLP of 4h, dropout, unfused attention.
ModelSpec gpt3() {
  return *model_preset("gpt3-175b");
}

ActivationLayout layout(int tp, bool sp, Recompute r, int b = 1) {
  ActivationLayout l;
  l.micro_batch = b;
  l.tp = tp;
  l.sequence_parallel = sp;
  l.recompute = r;
  l.attention = AttentionKernel::standard;
  return l;
}

class KorthikantiTable2 : public ::testing::Test {
 protected:
  ModelSpec m = gpt3();
  double s = m.seq_len, h = m.hidden, a = m.heads, b = 2;
  double sbh = s * b * h;
  void expect_rel(double actual, double expected) { EXPECT_NEAR(actual / expected, 1.0, 1e-12); }
};

TEST_F(KorthikantiTable2, NoParallelismEq1) {
  expect_rel(layer_activation_bytes(m, layout(1, false, Recompute::none, 2)), sbh * (34 + 5 * a * s / h));
}

TEST_F(KorthikantiTable2, TensorParallelEq2) {
  for (int t : {2, 4, 8}) {
    expect_rel(layer_activation_bytes(m, layout(t, false, Recompute::none, 2)),
               sbh * (10 + 24.0 / t + 5 * a * s / (h * t)));
  }
}

TEST_F(KorthikantiTable2, TensorAndSequenceParallelEq4) {
  for (int t : {2, 4, 8}) {
    expect_rel(layer_activation_bytes(m, layout(t, true, Recompute::none, 2)), sbh * (34.0 / t + 5 * a * s / (h * t)));
  }
}

TEST_F(KorthikantiTable2, SelectiveRecompute) {
  const int t = 8;
  expect_rel(layer_activation_bytes(m, layout(t, false, Recompute::selective, 2)), sbh * (10 + 24.0 / t));
  expect_rel(layer_activation_bytes(m, layout(t, true, Recompute::selective, 2)), sbh * 34.0 / t);
}

TEST_F(KorthikantiTable2, FullRecompute) {
  expect_rel(layer_activation_bytes(m, layout(8, false, Recompute::full, 2)), 2 * sbh);
}

TEST_F(KorthikantiTable2, SelectiveSavesSeventyPercentForGpt3) {
  // §5: 5as/h = 80 for GPT-3, so selective recompute keeps 34/(34+80) of the activations.
  EXPECT_NEAR(5 * a * s / h, 80.0, 1e-9);
  const double full = layer_activation_bytes(m, layout(8, true, Recompute::none));
  const double selective = layer_activation_bytes(m, layout(8, true, Recompute::selective));
  EXPECT_NEAR(1.0 - selective / full, 0.70, 0.005);
}

TEST(ActivationMemory, FlashAttentionStoresNoScoreMatrix) {
  ModelSpec m = *model_preset("llama3-8b");
  ActivationLayout l;
  l.attention = AttentionKernel::standard;
  const double standard = layer_activation_bytes(m, l);
  l.attention = AttentionKernel::flash;
  const double flash = layer_activation_bytes(m, l);
  const double s = m.seq_len;
  // Without dropout the standard kernel keeps the 2 a s^2 b softmax output; flash keeps 4 a s b.
  EXPECT_NEAR(standard - flash, 2.0 * m.heads * s * s - 4.0 * m.heads * s, 1.0);
}

TEST(ActivationMemory, GroupedQueryAttentionShrinksKeysAndValues) {
  ModelSpec mha = *model_preset("llama3-8b");
  mha.kv_heads = mha.heads;
  ModelSpec gqa = *model_preset("llama3-8b");  // 8 of 32 heads
  ActivationLayout l;
  const double sbh = static_cast<double>(mha.seq_len) * mha.hidden;
  // K and V: 4 s b h for MHA, scaled by kv_heads / heads.
  EXPECT_NEAR(layer_activation_bytes(mha, l) - layer_activation_bytes(gqa, l), 4.0 * sbh * (1.0 - 8.0 / 32.0), 1.0);
}

TEST(ActivationMemory, ContextParallelSplitsTheSequence) {
  const ModelSpec m = *model_preset("llama3-70b");
  ActivationLayout one;
  ActivationLayout four;
  four.cp = 4;
  EXPECT_NEAR(layer_activation_bytes(m, four) * 4, layer_activation_bytes(m, one), 1.0);
}

TEST(ActivationMemory, OutputLayerKeepsFp32Logits) {
  const ModelSpec m = gpt3();
  ActivationLayout l = layout(8, true, Recompute::none);
  const double s = m.seq_len, h = m.hidden, v = m.vocab;
  // Korthikanti App. B, δ(p=1) term: (s b h / t)(4/L)(1 + v/h) per layer-sum -> 4 s b h / t + 4 s b v / t.
  EXPECT_NEAR(output_activation_bytes(m, l), 4 * s * h / 8 + 4 * s * v / 8, 1.0);
  EXPECT_NEAR(embedding_activation_bytes(m, l), s * h / 8, 1e-6);
}

TEST(ActivationMemory, FusedCrossEntropyKeeps16BitLogits) {
  const ModelSpec m = gpt3();
  ActivationLayout l = layout(8, true, Recompute::none);
  const double fp32 = output_activation_bytes(m, l);
  l.fused_cross_entropy = true;
  EXPECT_NEAR(fp32 - output_activation_bytes(m, l), 2.0 * m.seq_len * m.vocab / 8, 1.0);
}

TEST(ActivationMemory, QuantizedTrainingSavesTheGemmInputsItQuantized) {
  // Llama 3 70B (GQA 8 of 64 heads, SwiGLU of 28672), fused attention, no parallelism. In
  // 16-bit: 8 s b h unsplit (two residual inputs, two normed inputs), Q 2, K and V 0.5, the
  // projection's input 2, and 6 s b f. Under FP8 the two normed inputs and the FC2 input are
  // saved as their 1-byte copies, and the projection keeps one beside the 16-bit output.
  const ModelSpec m = *model_preset("llama3-70b");
  ActivationLayout bf16;
  ActivationLayout fp8;
  fp8.gemm_input_bytes = 1.0;
  const double s = m.seq_len, h = m.hidden, f = m.ffn_hidden, a = m.heads;
  const double core = 4.0 * a * s;  // the fused attention's log-sum-exp
  EXPECT_NEAR(layer_activation_bytes(m, bf16), s * h * (8 + 4.5) + 6 * s * f + core, 1.0);
  EXPECT_NEAR(layer_activation_bytes(m, fp8), s * h * (6 + 4.5 + 1) + 5 * s * f + core, 1.0);
}

// GPT-OSS's eager passes keep, besides what the fused path keeps (activation_memory.cpp): the
// unfused YaRN rotation its cos and sin tables for the query and for the key (4 s d elements of
// 2 bytes, whatever the batch, the heads and TP), the clamp the experts' fc1 output (2 f a
// routed row: top_k rows a token, 2 bytes each), the second bias nothing.
TEST(ActivationMemory, GptOssEagerPassesKeepTheirSavedInputs) {
  const ModelSpec oss = *model_preset("gpt-oss-120b");
  ASSERT_EQ(oss.rope_scaling, RopeScaling::yarn);
  ASSERT_GT(oss.activation_clamp, 0.0);
  ModelSpec fused_rope = oss;
  fused_rope.rope_scaling = RopeScaling::none;
  ModelSpec no_clamp = oss;
  no_clamp.activation_clamp = 0;
  const double s = 4096, d = 64, f = 2880, top_k = 4;
  for (const int tp : {1, 2})
    for (const int b : {1, 2})
      for (const int cp : {1, 2}) {
        ModelSpec m = oss;
        m.seq_len = static_cast<int>(s);
        ModelSpec r = fused_rope, c = no_clamp;
        r.seq_len = c.seq_len = m.seq_len;
        ActivationLayout l;
        l.tp = tp;
        l.micro_batch = b;
        l.cp = cp;
        l.sequence_parallel = tp > 1;
        const double tables = 4.0 * (s / cp) * d * 2.0;
        EXPECT_NEAR(layer_activation_bytes(m, l) - layer_activation_bytes(r, l), tables, 1e-6 * tables);
        const double fc1 = (s / cp) * b * top_k * 2.0 * f * 2.0 / tp;
        EXPECT_NEAR(layer_activation_bytes(m, l) - layer_activation_bytes(c, l), fc1, 1e-6 * fc1);
        // Selective recompute keeps both; full recompute keeps the layer's input only, and the
        // layer run again holds them while it is recomputed.
        l.recompute = Recompute::selective;
        EXPECT_NEAR(layer_activation_bytes(m, l) - layer_activation_bytes(r, l), tables, 1e-6 * tables);
        l.recompute = Recompute::full;
        EXPECT_EQ(layer_activation_bytes(m, l), layer_activation_bytes(r, l));
        EXPECT_NEAR(recompute_working_bytes(m, l) - recompute_working_bytes(c, l), fc1, 1e-6 * fc1);
      }
  // The fused rotation of plain RoPE and MLA's keep no tables; a dense layer has no clamp.
  const ModelSpec ds = *model_preset("deepseek-v3");
  ModelSpec ds_yarn = ds;
  ds_yarn.rope_scaling = RopeScaling::yarn;
  ActivationLayout l;
  EXPECT_EQ(layer_activation_bytes(ds_yarn, l), layer_activation_bytes(ds, l));
  ModelSpec dense = *model_preset("llama3-8b");
  ModelSpec clamped = dense;
  clamped.activation_clamp = 7;
  EXPECT_EQ(layer_activation_bytes(clamped, l), layer_activation_bytes(dense, l));
}

}  // namespace
}  // namespace trainsim
