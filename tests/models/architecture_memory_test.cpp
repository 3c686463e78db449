// Activation memory of the 2024-2025 architectures (issue 16): MLA's latents and per-head
// keys and values, shared and fine-grained experts, the parallel block.

#include <gtest/gtest.h>

#include "models/activation_memory.hpp"
#include "models/layer_kinds.hpp"
#include "models/model_presets.hpp"

namespace trainsim {
namespace {

ActivationLayout no_recompute() {
  ActivationLayout l;
  l.recompute = Recompute::none;
  l.attention = AttentionKernel::flash;
  return l;
}

TEST(ArchitectureMemory, MlaLayerByHand) {
  // DeepSeek-V3's MoE layer, s = 4096, b = 1, no parallelism, 2-byte activations:
  //  kept whole: the layer's and the MLP's inputs and two norm inputs (8 s b h), the two
  //    latents and their normed copies (4 s b (q_lora_rank + kv_lora_rank + rope));
  //  per head: Q (192), K (192) and V (128) after the up-projections, the output
  //    projection's input (128), 2 s b each;
  //  SwiGLU experts: 6 s b f for each of the 8 routed and the shared expert of 2048;
  //  FlashAttention's log-sum-exp: 4 a s b.
  const ModelSpec m = layer_spec(*model_preset("deepseek-v3"), 10);
  const double s = 4096, h = 7168, a = 128;
  const double expected = 8 * s * h + 4 * s * (1536 + 512 + 64) + 2 * s * a * (192 + 192 + 128 + 128) +
                          6 * s * 2048 * (8 + 1) + 4 * a * s;
  EXPECT_NEAR(layer_activation_bytes(m, no_recompute()) / expected, 1.0, 1e-12);
}

TEST(ArchitectureMemory, DenseFirstLayersKeepTheirWideMlp) {
  const ModelSpec m = *model_preset("deepseek-v3");
  const double dense = layer_activation_bytes(layer_spec(m, 0), no_recompute());
  const double moe = layer_activation_bytes(layer_spec(m, 3), no_recompute());
  // The dense MLP of 18432 keeps 6 s f against the experts' 6 s 2048 x 9.
  EXPECT_NEAR(dense - moe, 6.0 * 4096 * (18432 - 9 * 2048), 1.0);
}

TEST(ArchitectureMemory, ParallelBlockKeepsOneNormedInput) {
  ModelSpec m = *model_preset("llama2-7b");
  const double sequential = layer_activation_bytes(m, no_recompute());
  m.parallel_block = true;
  EXPECT_NEAR(sequential - layer_activation_bytes(m, no_recompute()), 4.0 * 4096 * 4096, 1.0);
}

}  // namespace
}  // namespace trainsim
