#include <gtest/gtest.h>

#include "models/model_presets.hpp"
#include "models/parameter_count.hpp"

namespace trainsim {
namespace {

double total(const char* preset) {
  const ModelSpec m = *model_preset(preset);
  return count_parameters(m).total(m.layers);
}

TEST(ParameterCount, Gpt3MatchesMegatronEq2PlusFinalNorm) {
  // Narayanan et al. SC21 eq. 2: P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)).
  const ModelSpec m = *model_preset("gpt3-175b");
  const double l = m.layers, h = m.hidden, v = m.vocab, s = m.seq_len;
  const double eq2 = 12 * l * h * h * (1 + 13 / (12 * h) + (v + s) / (12 * l * h));
  EXPECT_NEAR(total("gpt3-175b"), eq2 + 2 * h, 1.0);
  EXPECT_NEAR(total("gpt3-175b") / 1e9, 174.6, 0.1);
}

TEST(ParameterCount, MegatronTable1Rows) {
  // public.md A1: 1.7B (24 heads, h 2304, 24 layers) ... 1008B (160, 25600, 128), V = 51200, s = 2048.
  struct Row {
    int heads, hidden, layers;
    double billions;
  };
  const Row rows[] = {{24, 2304, 24, 1.7},      {32, 3072, 30, 3.6},     {32, 4096, 36, 7.5},
                      {48, 6144, 40, 18.4},     {64, 8192, 48, 39.1},    {80, 10240, 60, 76.1},
                      {96, 12288, 80, 145.6},   {128, 16384, 96, 310.1}, {128, 20480, 105, 529.6},
                      {160, 25600, 128, 1008.0}};
  for (const Row& r : rows) {
    ModelSpec m = *model_preset("gpt3-175b");
    m.heads = m.kv_heads = r.heads;
    m.hidden = r.hidden;
    m.ffn_hidden = 4 * r.hidden;
    m.layers = r.layers;
    m.vocab = 51200;
    EXPECT_NEAR(count_parameters(m).total(m.layers) / 1e9, r.billions, 0.051) << r.hidden;
  }
}

TEST(ParameterCount, PublishedCheckpointsExactly) {
  // The parameter counts of the released checkpoints.
  EXPECT_DOUBLE_EQ(total("llama2-7b"), 6738415616.0);
  EXPECT_DOUBLE_EQ(total("llama3-8b"), 8030261248.0);
  EXPECT_DOUBLE_EQ(total("llama3-70b"), 70553706496.0);
  EXPECT_DOUBLE_EQ(total("llama3-405b"), 405853388800.0);
  EXPECT_DOUBLE_EQ(total("mixtral-8x7b"), 46702792704.0);
}

TEST(ParameterCount, ActiveParametersOfMoeCountTopK) {
  const ModelSpec m = *model_preset("mixtral-8x7b");
  const double mlp = 3.0 * m.hidden * m.ffn_hidden;
  const double attention = 2.0 * m.hidden * m.hidden + 2.0 * m.hidden * m.kv_heads * m.head_dim();
  const double router = static_cast<double>(m.hidden) * m.experts;
  EXPECT_DOUBLE_EQ(active_matmul_parameters_per_layer(m), attention + router + 2 * mlp);
}

}  // namespace
}  // namespace trainsim
