// FLOPs of the ops the 2024-2025 architectures add (issue 16), each against a hand formula.

#include <gtest/gtest.h>

#include <string>

#include "models/layer_cost.hpp"
#include "models/layer_kinds.hpp"
#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"
#include "tests/models/find_op.hpp"

namespace trainsim {
namespace {

using testing::find_op;

double forward_flops(const PassOps& ops, const std::string& name) {
  const Op* op = find_op(ops.forward, name);
  return op == nullptr ? -1.0 : op->model_flops;
}

TEST(ArchitectureFlops, MlaProjectionsAndAttention) {
  // DeepSeek-V3 (§2.1.1) with T = 4096 tokens: 2 T x (in x out) per projection.
  const ModelSpec m = layer_spec(*model_preset("deepseek-v3"), 5);
  TrainingSpec tr;
  const ParallelSpec p;
  const PassOps ops = transformer_layer_ops(m, tr, p);
  const double t = 4096, h = 7168, a = 128;
  EXPECT_EQ(forward_flops(ops, "q.down"), 2 * t * h * 1536);
  EXPECT_EQ(forward_flops(ops, "q.up"), 2 * t * 1536 * a * 192);
  EXPECT_EQ(forward_flops(ops, "kv.down"), 2 * t * h * 576);
  EXPECT_EQ(forward_flops(ops, "kv.up"), 2 * t * 512 * a * 256);
  EXPECT_EQ(forward_flops(ops, "attention.proj"), 2 * t * a * 128 * h);
  // Scores over 192-wide query/key heads, values 128 wide: 2 T s a (192 + 128), the causal half run.
  const Op* attention = find_op(ops.forward, "attention");
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(attention->model_flops, 2 * t * 4096 * a * (192 + 128));
  EXPECT_EQ(attention->flops, 0.5 * attention->model_flops);
  EXPECT_EQ(find_op(ops.forward, "qkv"), nullptr);
  // The layer's forward is the per-token cost the pipeline split balances with.
  EXPECT_NEAR(total_flops(ops.forward) / (t * layer_forward_flops_per_token(m)), 1.0, 1e-12);
}

TEST(ArchitectureFlops, SharedAndFineGrainedExperts) {
  const ModelSpec m = layer_spec(*model_preset("deepseek-v3"), 5);
  TrainingSpec tr;
  ParallelSpec p;
  p.ep = 8;
  const PassOps ops = transformer_layer_ops(m, tr, p);
  const double t = 4096, h = 7168;
  EXPECT_EQ(forward_flops(ops, "shared_experts.up"), 2 * t * h * 2 * 2048);
  EXPECT_EQ(forward_flops(ops, "shared_experts.down"), 2 * t * 2048 * h);
  // 8 of 256 experts per token, 2048 wide: T x 8 tokens through the rank's 32 experts in all.
  EXPECT_EQ(forward_flops(ops, "experts.up"), 2 * t * 8 * h * 2 * 2048);
  EXPECT_EQ(forward_flops(ops, "router"), 2 * t * h * 256);
  // A dense first layer: one MLP of 18432, no router.
  const PassOps dense = transformer_layer_ops(layer_spec(*model_preset("deepseek-v3"), 0), tr, ParallelSpec{});
  EXPECT_EQ(forward_flops(dense, "mlp.up"), 2 * t * h * 2 * 18432);
  EXPECT_EQ(find_op(dense.forward, "router"), nullptr);
}

TEST(ArchitectureFlops, SlidingWindowAttention) {
  // GPT-OSS's windowed layers: each query sees at most 128 keys. Model FLOPs count the band
  // (2 T w a (d + d)); the kernel runs sum_i min(i, w) ~ w s - w^2/2 keys a sample.
  const ModelSpec oss = *model_preset("gpt-oss-120b");
  TrainingSpec tr;
  const ParallelSpec p;
  const double t = 4096, a = 64, d = 64, w = 128, s = 4096;
  const PassOps windowed = transformer_layer_ops(layer_spec(oss, 0), tr, p);
  const Op* op = find_op(windowed.forward, "attention.window");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->model_flops, 2 * t * w * a * (d + d));
  EXPECT_NEAR(op->flops / (2 * (w * s - w * w / 2) * a * (d + d)), 1.0, 1e-12);
  const PassOps full = transformer_layer_ops(layer_spec(oss, 1), tr, p);
  const Op* full_op = find_op(full.forward, "attention");
  ASSERT_NE(full_op, nullptr);
  EXPECT_EQ(full_op->model_flops, 2 * t * s * a * (d + d));
  EXPECT_EQ(find_op(full.forward, "attention.window"), nullptr);
}

TEST(ArchitectureFlops, ExplicitHeadDimAndQkNorm) {
  // Qwen3-30B-A3B: 32 query heads of 128 on a hidden of 2048, 4 KV heads.
  const ModelSpec m = *model_preset("qwen3-30b-a3b");
  const PassOps ops = transformer_layer_ops(m, TrainingSpec{}, ParallelSpec{});
  const double t = 4096, h = 2048;
  EXPECT_EQ(forward_flops(ops, "qkv"), 2 * t * h * (32 + 8) * 128);
  EXPECT_EQ(forward_flops(ops, "attention.proj"), 2 * t * 32 * 128 * h);
  EXPECT_NE(find_op(ops.forward, "attention.qk_norm"), nullptr);
}

TEST(ArchitectureFlops, SquaredReluMlp) {
  // Nemotron-4: up h -> f, relu(x)^2, down f -> h: 4 T h f.
  const ModelSpec m = *model_preset("nemotron-4-340b");
  const PassOps ops = transformer_layer_ops(m, TrainingSpec{}, ParallelSpec{});
  const double t = 4096, h = 18432, f = 73728;
  EXPECT_EQ(forward_flops(ops, "mlp.up") + forward_flops(ops, "mlp.down"), 4 * t * h * f);
  const Op* act = find_op(ops.forward, "mlp.activation");
  ASSERT_NE(act, nullptr);
  EXPECT_EQ(act->bytes, 2 * t * f * 2.0);  // reads and writes f wide (one matrix, not SwiGLU's two)
}

TEST(ArchitectureFlops, ParallelBlockHasOneNormAndOneResidual) {
  ModelSpec m = *model_preset("llama2-7b");
  const PassOps sequential = transformer_layer_ops(m, TrainingSpec{}, ParallelSpec{});
  m.parallel_block = true;
  const PassOps parallel = transformer_layer_ops(m, TrainingSpec{}, ParallelSpec{});
  EXPECT_EQ(total_flops(parallel.forward), total_flops(sequential.forward));  // same matmuls (PaLM §2)
  EXPECT_NE(find_op(parallel.forward, "block.norm"), nullptr);
  EXPECT_NE(find_op(parallel.forward, "block.residual"), nullptr);
  EXPECT_EQ(find_op(parallel.forward, "mlp.norm"), nullptr);
  EXPECT_EQ(find_op(parallel.forward, "attention.residual"), nullptr);
  EXPECT_EQ(parallel.forward.size() + 2, sequential.forward.size());
}

TEST(ArchitectureFlops, MtpProjection) {
  // DeepSeek-V3 §2.2: the concatenation [h; h] projected to h, 2 T (2h) h.
  const ModelSpec m = *model_preset("deepseek-v3");
  const PassOps ops = mtp_projection_ops(m, TrainingSpec{}, ParallelSpec{});
  EXPECT_EQ(forward_flops(ops, "mtp.proj"), 2.0 * 4096 * 2 * 7168 * 7168);
  EXPECT_NEAR(total_flops(ops.backward) / total_flops(ops.forward), 2.0, 1e-12);
}

}  // namespace
}  // namespace trainsim
