// The output projection that keeps its 16-bit input (models/original_input_casts.hpp):
// Megatron-Core's set_save_original_input(linear_proj) under every quantized recipe but fp8
// delayed scaling, and what Transformer Engine's Linear runs for it (v2.14 linear.py).

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "models/activation_memory.hpp"
#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"
#include "models/original_input_casts.hpp"
#include "tests/models/find_op.hpp"

namespace trainsim {
namespace {

using testing::find_op;

TrainingSpec recipe(Precision p, Fp8Scaling scaling = Fp8Scaling::current) {
  TrainingSpec tr;
  tr.precision = p;
  tr.fp8_scaling = scaling;
  return tr;
}

std::size_t index_of(const std::vector<Op>& ops, const std::string& name) {
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].name == name) return i;
  return ops.size();
}

TEST(OriginalInputCasts, EveryQuantizedRecipeButDelayedScaling) {
  EXPECT_TRUE(projection_saves_original_input(recipe(Precision::mxfp8)));
  EXPECT_TRUE(projection_saves_original_input(recipe(Precision::nvfp4)));
  EXPECT_TRUE(projection_saves_original_input(recipe(Precision::fp8)));
  EXPECT_FALSE(projection_saves_original_input(recipe(Precision::fp8, Fp8Scaling::delayed)));
  EXPECT_FALSE(projection_saves_original_input(recipe(Precision::bf16)));
}

// MXFP8, Llama 3 8B, no parallelism (T tokens, the projection's input T x h): the forward casts
// the row-wise copy alone (2 + 1 + 1/32 bytes an element, and the weight's h x h scales
// swizzled, read and written); the backward casts the saved bf16 input column-wise (2 + 1 +
// 1/32, one kernel) just before the weight-gradient GEMM. Together 2 bytes an element more than
// one cast writing both copies (2 + 2 x (1 + 1/32)).
TEST(OriginalInputCasts, Mxfp8ProjectionCastsItsInputTwiceOneCopyEach) {
  const ModelSpec m = *model_preset("llama3-8b");
  const double tokens = m.seq_len, h = m.hidden;
  const PassOps ops = transformer_layer_ops(m, recipe(Precision::mxfp8), ParallelSpec{});
  const double one_copy = 2.0 + 1.0 + 1.0 / 32;
  const double swizzle = 2.0 * h * h / 32;
  const Op* forward = find_op(ops.forward, "attention.proj.quantize");
  ASSERT_NE(forward, nullptr);
  EXPECT_DOUBLE_EQ(forward->bytes, one_copy * tokens * h + swizzle);
  EXPECT_EQ(forward->kernels, 2);  // the cast and the weight's swizzle
  const std::size_t input = index_of(ops.backward, "attention.proj.quantize.input");
  ASSERT_LT(input, ops.backward.size());
  EXPECT_EQ(index_of(ops.backward, "attention.proj.wgrad"), input + 1);
  const Op& again = ops.backward[input];
  EXPECT_EQ(again.pass, OpPass::backward);
  EXPECT_EQ(again.kernels, 1);
  EXPECT_DOUBLE_EQ(again.bytes, one_copy * tokens * h);
  EXPECT_DOUBLE_EQ(forward->bytes + again.bytes - swizzle - (2.0 + 2.0 * (1.0 + 1.0 / 32)) * tokens * h,
                   2.0 * tokens * h);
  // The other linear layers keep their quantized inputs: no second cast.
  for (const char* gemm : {"qkv", "mlp.up", "mlp.down"})
    EXPECT_EQ(find_op(ops.backward, std::string(gemm) + ".quantize.input"), nullptr) << gemm;
}

// fp8 with current scaling on Hopper (two copies): forward an amax pass and the row-wise copy
// (2 + 2 + 1 bytes, 3 kernels with the scale's), backward the same for the column-wise copy.
// Delayed scaling keeps the quantized input: one cast of both copies (2 + 2), no second cast.
TEST(OriginalInputCasts, Fp8CurrentScalingRecastsDelayedKeeps) {
  const ModelSpec m = *model_preset("llama3-8b");
  const double tokens = m.seq_len, h = m.hidden;
  const PassOps current = transformer_layer_ops(m, recipe(Precision::fp8), ParallelSpec{});
  EXPECT_DOUBLE_EQ(find_op(current.forward, "attention.proj.quantize")->bytes, 5.0 * tokens * h);
  const Op* again = find_op(current.backward, "attention.proj.quantize.input");
  ASSERT_NE(again, nullptr);
  EXPECT_DOUBLE_EQ(again->bytes, 5.0 * tokens * h);
  EXPECT_EQ(again->kernels, 3);
  const PassOps delayed = transformer_layer_ops(m, recipe(Precision::fp8, Fp8Scaling::delayed), ParallelSpec{});
  EXPECT_DOUBLE_EQ(find_op(delayed.forward, "attention.proj.quantize")->bytes, 4.0 * tokens * h);
  EXPECT_EQ(find_op(delayed.backward, "attention.proj.quantize.input"), nullptr);
  // A layer kept in bf16 (first_last_layers_bf16) casts nothing, again or not.
  const PassOps bf16 = transformer_layer_ops(m, recipe(Precision::mxfp8), ParallelSpec{}, true);
  EXPECT_EQ(find_op(bf16.backward, "attention.proj.quantize.input"), nullptr);
}

// Full recomputation repeats the forward: its projection cast is the row-wise one too.
TEST(OriginalInputCasts, RecomputedForwardCastsOneCopy) {
  const ModelSpec m = *model_preset("llama3-8b");
  TrainingSpec tr = recipe(Precision::mxfp8);
  tr.recompute = Recompute::full;
  const PassOps ops = transformer_layer_ops(m, tr, ParallelSpec{});
  const Op* forward = find_op(ops.forward, "attention.proj.quantize");
  const Op* recomputed = find_op(ops.recompute, "attention.proj.quantize");
  ASSERT_NE(recomputed, nullptr);
  EXPECT_DOUBLE_EQ(recomputed->bytes, forward->bytes);
  EXPECT_EQ(recomputed->pass, OpPass::recompute);
}

// Memory: the projection's quantized copy (q bytes an element of its s x h input, Llama 3 70B:
// heads x head dim = h) is not kept beside attention's 16-bit output.
TEST(OriginalInputCasts, ProjectionKeepsNoQuantizedCopy) {
  const ModelSpec m = *model_preset("llama3-70b");
  ActivationLayout kept;
  kept.gemm_input_bytes = 1.0;
  ActivationLayout original = kept;
  original.projection_saves_original_input = true;
  EXPECT_NEAR(layer_activation_bytes(m, kept) - layer_activation_bytes(m, original),
              1.0 * m.seq_len * m.hidden, 1.0);
}

}  // namespace
}  // namespace trainsim
