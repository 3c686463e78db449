// Parameter counts of the 2024-2025 architectures (issue 16) against the released checkpoints.
// Each expected count was computed tensor by tensor from the model's published config.json
// (the shapes of its safetensors: q_a_proj, kv_b_proj, experts.gate_up_proj, sinks, ...),
// independently of the formulas in models/parameter_count.cpp.

#include <gtest/gtest.h>

#include "models/layer_kinds.hpp"
#include "models/memory_budget.hpp"
#include "models/model_presets.hpp"
#include "models/parameter_count.hpp"
#include "models/stage_parameters.hpp"

namespace trainsim {
namespace {

double total_of(const char* preset) {
  return total_parameters(*model_preset(preset));
}

TEST(ArchitectureParameters, DeepSeekV3MatchesTheReleasedCheckpoint) {
  // huggingface.co/deepseek-ai/DeepSeek-V3 config.json and README_WEIGHTS.md: the main model
  // ("671B") is 671,026,419,200 parameters; the MTP module adds 11,610,068,224 of its own
  // ("11.5B unique", embedding and output head shared).
  ModelSpec m = *model_preset("deepseek-v3");
  m.mtp_depth = 0;
  EXPECT_EQ(total_parameters(m), 671026419200.0);
  EXPECT_EQ(total_of("deepseek-v3"), 671026419200.0 + 11610068224.0);
}

TEST(ArchitectureParameters, Qwen3MoeMatchTheReleasedCheckpoints) {
  // huggingface.co/Qwen/Qwen3-30B-A3B and Qwen/Qwen3-235B-A22B config.json ("30.5B", "235B").
  EXPECT_EQ(total_of("qwen3-30b-a3b"), 30532122624.0);
  EXPECT_EQ(total_of("qwen3-235b-a22b"), 235093634560.0);
}

TEST(ArchitectureParameters, GptOssMatchesTheReleasedCheckpoint) {
  // huggingface.co/openai/gpt-oss-120b config.json; the model card's 116.83B.
  EXPECT_EQ(total_of("gpt-oss-120b"), 116829156672.0);
}

TEST(ArchitectureParameters, Nemotron4MatchesTheReleasedConfig) {
  // NeMo's Nemotron4Config340B (huggingface.co/nvidia/Nemotron-4-340B-Base): LayerNorm with
  // bias, no linear biases, untied, vocab 256000.
  EXPECT_EQ(total_of("nemotron-4-340b"), 341029195776.0);
}

TEST(ArchitectureParameters, ExistingPresetsKeepTheirCounts) {
  for (const std::string& name : model_preset_names()) {
    const ModelSpec m = *model_preset(name);
    if (!has_uniform_layers(m) || m.mtp_depth > 0) continue;
    EXPECT_EQ(total_parameters(m), count_parameters(m).total(m.layers)) << name;
  }
}

TEST(ArchitectureParameters, MlaAttentionByHand) {
  // DeepSeek-V2 §2.1: W^DQ (h x d_c'), W^UQ and W^QR (d_c' x n_h (d_h + d_h^R)), W^DKV and
  // W^KR (h x (d_c + d_h^R)), W^UK and W^UV (d_c x n_h (d_h + d_v)), W^O (n_h d_v x h), and
  // the two latent norms.
  const ModelSpec m = layer_spec(*model_preset("deepseek-v3"), 10);
  const ParameterCounts c = count_parameters(m);
  const double h = 7168, a = 128, qr = 1536, kvr = 512, rope = 64, nope = 128, v = 128;
  EXPECT_EQ(c.attention_per_layer, qr * a * (nope + rope) + kvr * a * (nope + v) + a * v * h);
  EXPECT_EQ(c.attention_replicated_per_layer, h * qr + qr + h * (kvr + rope) + kvr);
}

TEST(ArchitectureParameters, SharedAndFineGrainedExperts) {
  const ModelSpec m = *model_preset("deepseek-v3");
  const ParameterCounts moe = count_parameters(layer_spec(m, 3));
  EXPECT_EQ(moe.mlp_per_layer, 256.0 * 3 * 7168 * 2048);
  EXPECT_EQ(moe.shared_mlp_per_layer, 3.0 * 7168 * 2048);
  EXPECT_EQ(moe.router_per_layer, 256.0 * 7168 + 256);
  const ParameterCounts dense = count_parameters(layer_spec(m, 2));
  EXPECT_EQ(dense.mlp_per_layer, 3.0 * 7168 * 18432);
  EXPECT_EQ(dense.shared_mlp_per_layer + dense.router_per_layer, 0.0);
}

TEST(ArchitectureParameters, SquaredReluAndParallelBlock) {
  ModelSpec m = *model_preset("llama2-7b");
  m.activation = FfnActivation::squared_relu;
  EXPECT_EQ(count_parameters(m).mlp_per_layer, 2.0 * 4096 * 11008);
  m.parallel_block = true;
  EXPECT_EQ(count_parameters(m).norms_per_layer, 4096.0);  // one RMSNorm (PaLM §2)
}

TEST(ArchitectureParameters, LayerKindsFollowThePatterns) {
  const ModelSpec ds = *model_preset("deepseek-v3");
  EXPECT_FALSE(layer_spec(ds, 2).is_moe());
  EXPECT_TRUE(layer_spec(ds, 3).is_moe());
  const std::vector<LayerRun> runs = layer_runs(ds, 0, 61);
  ASSERT_EQ(runs.size(), 2U);
  EXPECT_EQ(runs[0].count, 3);
  EXPECT_EQ(runs[1].count, 58);
  const ModelSpec oss = *model_preset("gpt-oss-120b");
  EXPECT_EQ(layer_spec(oss, 0).sliding_window, 128);  // layer_types: sliding first
  EXPECT_EQ(layer_spec(oss, 1).sliding_window, 0);
  EXPECT_EQ(layer_runs(oss, 0, 36).size(), 36U);
  EXPECT_EQ(count_kinds(layer_runs(oss, 0, 36)).size(), 2U);
}

TEST(ArchitectureParameters, InterleavedMoeLayers) {
  // Every second layer MoE (Llama 4 Maverick's interleave_moe_layer_step = 2): layers 1, 3, ...
  ModelSpec m = *model_preset("mixtral-8x7b");
  m.moe_layer_interval = 2;
  EXPECT_FALSE(layer_spec(m, 0).is_moe());
  EXPECT_TRUE(layer_spec(m, 1).is_moe());
  const double moe = count_parameters(layer_spec(m, 1)).per_layer();
  EXPECT_EQ(total_parameters(m), count_parameters(layer_spec(m, 0)).total(16) + 16 * moe);
  EXPECT_LT(count_parameters(layer_spec(m, 0)).per_layer(), moe);
}

TEST(ArchitectureParameters, StagesAddUpToTheModel) {
  // With tp = ep = pp = 1 the one stage holds every parameter (MTP's shared embedding once).
  for (const char* name : {"deepseek-v3", "gpt-oss-120b", "qwen3-30b-a3b"}) {
    const ModelSpec m = *model_preset(name);
    ParallelSpec p;
    const StageParameters s = stage_parameters(m, p, 0, balanced_chunks(m, p));
    EXPECT_NEAR((s.dense + s.expert) / total_parameters(m), 1.0, 1e-12) << name;
  }
  // Over pipeline stages, a dense first stage holds no experts.
  const ModelSpec m = *model_preset("deepseek-v3");
  ParallelSpec p;
  p.stage_split = StageSplit::even;
  p.pp = 61;  // one layer a stage
  const std::vector<ModelChunk> chunks = balanced_chunks(m, p);
  EXPECT_EQ(stage_parameters(m, p, 0, chunks_of_stage(chunks, p.pp, 0)).expert, 0.0);
  EXPECT_GT(stage_parameters(m, p, 3, chunks_of_stage(chunks, p.pp, 3)).expert, 0.0);
}

}  // namespace
}  // namespace trainsim
