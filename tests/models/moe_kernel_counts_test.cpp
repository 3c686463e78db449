// An MoE layer's router and dispatcher ops as Megatron-Core @ 0d8e0714 (the 25.11 container)
// and Transformer Engine v2.9 run them (models/moe_kernel_counts.hpp): calls and kernels per op
// and pass, and how the dropless path's differ from the token-drop path's (padded to capacity).

#include <gtest/gtest.h>

#include <string>

#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"
#include "models/moe_kernel_counts.hpp"
#include "tests/models/find_op.hpp"
#include "tests/models/qwen3_moe.hpp"

namespace trainsim {
namespace {

using testing::find_op;

constexpr MoePath k_dropless{true, true, true, false};
constexpr MoePath k_padded{true, false, true, true};

KernelCount at(std::string_view name, OpPass pass, const MoePath& path) {
  const auto c = moe_kernel_count(name, pass, path);
  EXPECT_TRUE(c.has_value()) << name;
  return c.value_or(KernelCount{0, 0});
}

// The dropless preprocess sums the counts on the GPU (seven calls) and copies four tensors of
// them to the host; padded to capacity the counts are set on the host (one torch.full on the
// GPU) and nothing is copied.
TEST(MoeKernelCounts, DroplessPreprocessCopiesTheCountsToTheHost) {
  EXPECT_EQ(at("moe.preprocess", OpPass::forward, k_dropless).calls, 7);
  EXPECT_EQ(at("moe.dtoh", OpPass::forward, k_dropless).calls, 4);
  EXPECT_EQ(at("moe.preprocess", OpPass::forward, k_padded).calls, 1);
  MoePath unpadded = k_dropless;
  unpadded.capacity = true;  // dropping without padding: num_out_tokens summed and copied too
  EXPECT_EQ(at("moe.preprocess", OpPass::forward, unpadded).calls, 8);
  EXPECT_EQ(at("moe.dtoh", OpPass::forward, unpadded).calls, 5);
}

// Forced balance draws random logits (clone, normal_) before TE's fused top-k; a capacity factor
// adds apply_router_token_dropping's five ops; the aux loss is five calls forward, four back.
TEST(MoeKernelCounts, RouterCallsAsMegatronCoreMakesThem) {
  EXPECT_EQ(at("router.topk", OpPass::forward, k_dropless).kernels, 3);
  EXPECT_EQ(at("router.topk", OpPass::forward, k_padded).kernels, 8);
  EXPECT_EQ(at("router.topk", OpPass::recompute, k_padded).kernels, 8);
  EXPECT_EQ(at("router.topk.bwd", OpPass::backward, k_dropless).kernels, 2);
  EXPECT_EQ(at("router.topk.bwd", OpPass::backward, k_padded).kernels, 3);
  MoePath real = k_dropless;
  real.forced_balance = false;
  EXPECT_EQ(at("router.topk", OpPass::forward, real).kernels, 1);
  EXPECT_EQ(at("router.aux_loss", OpPass::forward, k_dropless).calls, 5);
  EXPECT_EQ(at("router.aux_loss.bwd", OpPass::backward, k_dropless).calls, 4);
}

// Transformer Engine's permutations are Triton kernels, each launched from Python.
TEST(MoeKernelCounts, TritonPermutationsLaunchEachKernelFromPython) {
  const KernelCount permute = at("moe.permute", OpPass::forward, k_dropless);
  EXPECT_EQ(permute.calls, 4);
  EXPECT_EQ(permute.kernels, 4);
  EXPECT_EQ(at("moe.permute.bwd", OpPass::backward, k_dropless).kernels, 1);
  EXPECT_EQ(at("experts.sort", OpPass::forward, k_dropless).calls, 2);
  EXPECT_EQ(at("experts.sort.bwd", OpPass::backward, k_dropless).calls, 1);
  EXPECT_EQ(at("experts.reshape", OpPass::forward, k_padded).calls, 2);
  EXPECT_EQ(at("experts.unreshape", OpPass::forward, k_padded).calls, 1);
  EXPECT_FALSE(moe_kernel_count("experts.up", OpPass::forward, k_dropless).has_value());
  MoePath flex = k_dropless;
  flex.alltoall = false;  // the flex dispatcher's own ops are not counted here; its router is
  EXPECT_FALSE(moe_kernel_count("moe.permute", OpPass::forward, flex).has_value());
  EXPECT_EQ(at("router.aux_loss", OpPass::forward, flex).kernels, 5);
}

ModelSpec qwen3(bool padded) { return testing::qwen3_moe(padded); }

int forward_calls(const std::vector<Op>& ops) {
  int calls = 0;
  for (const Op& op : ops)
    if (op.name.starts_with("router.") || op.name.starts_with("moe.") || op.name.starts_with("experts.sort") ||
        op.name.starts_with("experts.unsort") || op.name.starts_with("experts.reshape") ||
        op.name.starts_with("experts.unreshape"))
      calls += op.calls;
  return calls;
}

// One Qwen3 30B-A3B layer at EP 8 on the alltoall dispatcher: the dropless layer runs the
// preprocess's seven calls and four copies and waits on the host before the permutation;
// padded, one call, no copy, no wait. Router and dispatcher calls forward: 3 + 5 + 7 + 4 + 4 +
// 2 + 2 + 1 = 28 dropless, 8 + 5 + 1 + 4 + 2 + 1 + 1 = 22 padded.
TEST(MoeKernelCounts, TheLayersOpsCarryThePathsCounts) {
  ParallelSpec p;
  p.ep = 8;
  TrainingSpec t;
  for (const bool padded : {false, true}) {
    const PassOps ops = transformer_layer_ops(qwen3(padded), t, p);
    const Op* preprocess = find_op(ops.forward, "moe.preprocess");
    ASSERT_NE(preprocess, nullptr);
    EXPECT_EQ(preprocess->calls, padded ? 1 : 7);
    EXPECT_EQ(find_op(ops.forward, "moe.dtoh") != nullptr, !padded);
    EXPECT_EQ(find_op(ops.backward, "moe.preprocess.bwd"), nullptr);  // integer counts: no gradient
    const Op* permute = find_op(ops.forward, "moe.permute");
    ASSERT_NE(permute, nullptr);
    EXPECT_EQ(permute->host_sync, !padded);
    EXPECT_EQ(forward_calls(ops.forward), padded ? 22 : 28);
  }
}

}  // namespace
}  // namespace trainsim
