// A chunk's gradient tensors in backward order and Megatron-Core's buckets over them
// (models/gradient_tensors.hpp; issue 56 item 4: the bucket the backward issues last).

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "models/gradient_tensors.hpp"
#include "models/model_presets.hpp"
#include "models/stage_parameters.hpp"

namespace trainsim {
namespace {

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

ParallelSpec tp_pp(int tp, int pp) {
  ParallelSpec par;
  par.tp = tp;
  par.pp = pp;
  return par;
}

TEST(GradientTensors, DenseChunkSumsToTheStageParametersInBackwardOrder) {
  const ModelSpec m = *model_preset("llama3-8b");
  const ParallelSpec par = tp_pp(2, 1);
  const ModelChunk whole{0, m.layers, true, true};
  const std::vector<double> t = chunk_gradient_tensors(m, par, whole);
  const StageParameters p = stage_parameters(m, par, 0, {whole});
  EXPECT_NEAR(sum(t), p.dense, 1.0);
  const double embedding = static_cast<double>(m.vocab) * m.hidden / 2;
  EXPECT_DOUBLE_EQ(t.front(), embedding);  // the output layer (untied), reached first
  EXPECT_DOUBLE_EQ(t.back(), embedding);   // the token embedding, reached last
  // The last layer's second MLP weight comes right after the output layer and final norm.
  EXPECT_DOUBLE_EQ(t[2], static_cast<double>(m.ffn_hidden) * m.hidden / 2);
  // Six tensors a layer (two fused norms, QKV, output projection, two MLP weights).
  EXPECT_EQ(t.size(), static_cast<size_t>(6 * m.layers + 3));
}

TEST(GradientTensors, MiddleStageHasLayersOnly) {
  const ModelSpec m = *model_preset("llama3-70b");
  const ParallelSpec par = tp_pp(8, 4);
  const ModelChunk middle{20, 20, false, false};
  const std::vector<double> t = chunk_gradient_tensors(m, par, middle);
  EXPECT_EQ(t.size(), 6u * 20);
  EXPECT_NEAR(sum(t), stage_parameters(m, par, 1, {middle}).dense, 1.0);
}

TEST(GradientTensors, BucketsCloseOnceTheyHoldABucket) {
  // Closed at the first tensor that reaches the size, never split; the rest is the last.
  EXPECT_EQ(bucket_sizes({5, 5, 5, 5, 3}, 8), (std::vector<double>{10, 10, 3}));
  // A bucket closed by the last tensor leaves no empty one behind.
  EXPECT_EQ(bucket_sizes({4, 4, 4, 4}, 8), (std::vector<double>{8, 8}));
  // Less than a bucket, or no bucket size: one bucket.
  EXPECT_EQ(bucket_sizes({1, 2}, 8), (std::vector<double>{3}));
  EXPECT_EQ(bucket_sizes({1, 2}, 0), (std::vector<double>{3}));
}

TEST(GradientTensors, MlperfLlama8bLastBucketHoldsTheEmbeddingAndTheFirstLayers) {
  // MLPerf's 8B on 512 GB200 (scenarios/validation/mlperf-gb200-llama3.1-8b-512.ini): TP 2,
  // buckets of 768,000,000 parameters. Cut at tensors, the bucket issued last holds layers 0-4's
  // tensors below layer 5's second MLP weight and the embedding: about 888 M parameters, where
  // the gradients modulo a bucket would be 175 M.
  const ModelSpec m = *model_preset("llama3-8b");
  const ModelChunk whole{0, m.layers, true, true};
  const std::vector<double> t = chunk_gradient_tensors(m, tp_pp(2, 1), whole);
  const std::vector<double> b = bucket_sizes(t, 768e6);
  ASSERT_EQ(b.size(), 5u);
  EXPECT_NEAR(b.back() / 1e6, 888, 1);
  EXPECT_GT(b.back(), static_cast<double>(m.vocab) * m.hidden / 2);
  for (size_t i = 0; i + 1 < b.size(); ++i) EXPECT_GE(b[i], 768e6);
}

}  // namespace
}  // namespace trainsim
