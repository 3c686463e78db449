// The experts' quantization padding (models/expert_quantization_padding.hpp): Megatron-Core's
// TEGroupedMLP pads each local expert's rows to 16 (32 under MXFP8) before its quantized
// grouped GEMMs, when some split is not aligned (Transformer Engine v2.9 Fp8Padding).

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "models/expert_quantization_padding.hpp"
#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"
#include "tests/models/find_op.hpp"
#include "tests/models/qwen3_moe.hpp"

namespace trainsim {
namespace {

using testing::find_op;

ModelSpec qwen3(bool padded) { return testing::qwen3_moe(padded); }

std::size_t index_of(const std::vector<Op>& ops, const std::string& name) {
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].name == name) return i;
  return ops.size();
}

TEST(ExpertQuantizationPadding, AlignmentIsTheFormats) {
  EXPECT_EQ(quantization_alignment(Precision::fp8), 16);
  EXPECT_EQ(quantization_alignment(Precision::mxfp8), 32);
  EXPECT_EQ(quantization_alignment(Precision::bf16), 0);
}

// Dropless counts come from the routing: padded. Padded to capacity the rows are known: a
// multiple of the alignment needs nothing (Fp8Padding returns its input), another count pads.
TEST(ExpertQuantizationPadding, DroplessPadsCapacityOnlyWhenUnaligned) {
  ParallelSpec p;
  p.ep = 8;
  TrainingSpec fp8;
  fp8.precision = Precision::fp8;
  EXPECT_TRUE(pads_expert_splits(qwen3(false), fp8, p, 2048));
  EXPECT_FALSE(pads_expert_splits(qwen3(true), fp8, p, 2048));
  EXPECT_TRUE(pads_expert_splits(qwen3(true), fp8, p, 2040));  // 2040 = 127.5 x 16
  TrainingSpec mx = fp8;
  mx.precision = Precision::mxfp8;
  EXPECT_TRUE(pads_expert_splits(qwen3(true), mx, p, 2064));  // a multiple of 16, not of 32
  TrainingSpec bf16;
  EXPECT_FALSE(pads_expert_splits(qwen3(false), bf16, p, 2048));
  ParallelSpec flex = p;
  flex.moe_dispatcher = MoeDispatcher::hybridep;
  EXPECT_FALSE(pads_expert_splits(qwen3(false), fp8, flex, 2048));
}

// The ops sit around the grouped GEMMs in launch order and copy the rows they move once: a
// Qwen3 30B-A3B rank at EP 8 with one sequence of 4,096 tokens runs 4,096 x 8 rows of hidden
// 2,048 through its 16 experts, bf16 tokens and fp32 probabilities.
TEST(ExpertQuantizationPadding, TheLayersOpsPadAndUnpad) {
  ParallelSpec p;
  p.ep = 8;
  TrainingSpec t;
  t.precision = Precision::fp8;
  const PassOps ops = transformer_layer_ops(qwen3(false), t, p);
  const std::vector<Op>& f = ops.forward;
  const std::size_t pad = index_of(f, "experts.pad");
  ASSERT_LT(pad, f.size());
  EXPECT_EQ(f[pad + 1].name, "experts.up.quantize");
  EXPECT_EQ(f[index_of(f, "experts.unpad") - 1].name, "experts.down");
  const double rows = 4096.0 * 8;
  EXPECT_DOUBLE_EQ(f[pad].bytes, 2 * rows * 2048 * 2 + 2 * rows * 4);
  EXPECT_DOUBLE_EQ(find_op(f, "experts.unpad")->bytes, 2 * rows * 2048 * 2);
  EXPECT_EQ(f[pad].calls, 2);
  EXPECT_EQ(f[pad].kernels, 2);
  const std::vector<Op>& b = ops.backward;
  const std::size_t unpad_bwd = index_of(b, "experts.unpad.bwd");
  ASSERT_LT(unpad_bwd, b.size());
  EXPECT_EQ(b[unpad_bwd + 1].name.rfind("experts.down", 0), 0u);
  EXPECT_EQ(b[index_of(b, "experts.pad.bwd") - 1].name.rfind("experts.up", 0), 0u);
  EXPECT_EQ(find_op(b, "experts.pad.bwd")->kernels, 2);
  // Padded to capacity (2,048 rows an expert): no padding ops.
  const PassOps padded = transformer_layer_ops(qwen3(true), t, p);
  EXPECT_EQ(find_op(padded.forward, "experts.pad"), nullptr);
  EXPECT_EQ(find_op(padded.backward, "experts.pad.bwd"), nullptr);
}

}  // namespace
}  // namespace trainsim
