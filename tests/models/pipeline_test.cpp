#include <gtest/gtest.h>

#include <numeric>

#include "models/pipeline_inflight.hpp"
#include "models/stage_partition.hpp"

namespace trainsim {
namespace {

TEST(PipelineInflight, OneFOneBFirstStageHoldsP) {
  for (int s = 0; s < 4; ++s) EXPECT_EQ(inflight_microbatches(Schedule::one_f_one_b, 4, s, 8, 1), 4 - s);
  EXPECT_EQ(inflight_microbatches(Schedule::one_f_one_b, 8, 0, 3, 1), 3);  // fewer micro-batches than stages
  EXPECT_EQ(inflight_microbatches(Schedule::zb_h1, 4, 0, 8, 1), 4);        // Qi et al. Table 2: p M_B
}

TEST(PipelineInflight, GpipeHoldsAllMicrobatches) {
  for (int s = 0; s < 4; ++s) EXPECT_EQ(inflight_microbatches(Schedule::gpipe, 4, s, 8, 1), 8);
}

TEST(PipelineInflight, InterleavedFirstStageFactor) {
  // Korthikanti et al. §4.2.3: first stage holds 1 + (p-1)/(p v) times the 1F1B amount (p micro-batches).
  for (int p : {2, 4, 8}) {
    for (int v : {2, 3, 4}) {
      const double expected = p * (1.0 + (p - 1.0) / (p * v));
      EXPECT_DOUBLE_EQ(inflight_microbatches(Schedule::interleaved, p, 0, 4 * p, v), expected) << p << " " << v;
    }
  }
}

TEST(PipelineInflight, InterleavedGroupSetsTheWarmup) {
  // Megatron-Core's warm-up is (p-1-stage)*2 + (v-1)*N chunks, N the micro-batch group.
  // p = 16, v = 8, m = 32, stage 0: N = 16 holds (30 + 112 + 1) / 8 micro-batches, N = 32
  // (breadth-first) (30 + 224 + 1) / 8.
  EXPECT_DOUBLE_EQ(inflight_microbatches(Schedule::interleaved, 16, 0, 32, 8), 143.0 / 8);
  EXPECT_DOUBLE_EQ(inflight_microbatches(Schedule::interleaved, 16, 0, 32, 8, 16), 143.0 / 8);
  EXPECT_DOUBLE_EQ(inflight_microbatches(Schedule::interleaved, 16, 0, 32, 8, 32), 255.0 / 8);
  EXPECT_DOUBLE_EQ(inflight_microbatches(Schedule::interleaved, 16, 15, 32, 8, 24), (7 * 24 + 1) / 8.0);
  // m = p = 16: Megatron-Core no longer runs every forward first (Megatron-LM 2021 did).
  EXPECT_DOUBLE_EQ(inflight_microbatches(Schedule::interleaved, 16, 15, 16, 8), (7 * 16 + 1) / 8.0);
  EXPECT_DOUBLE_EQ(inflight_microbatches(Schedule::interleaved, 16, 0, 16, 8), 16.0);
}

TEST(PipelineInflight, NoPipelineHoldsOne) {
  EXPECT_EQ(inflight_microbatches(Schedule::gpipe, 1, 0, 16, 1), 1);
  EXPECT_EQ(inflight_microbatches(Schedule::one_f_one_b, 1, 0, 16, 1), 1);
}

TEST(StagePartition, UnevenLayerCountIsBalancedByCost) {
  // Llama 3 405B: 126 layers over 16 stages; the last stage also runs the output layer.
  const std::vector<double> costs(126, 1.0);
  const auto chunks = partition_layers(costs, 16, 0.0, 0.6);
  ASSERT_EQ(chunks.size(), 16u);
  int layers = 0;
  double max_cost = 0;
  for (const auto& c : chunks) {
    EXPECT_GE(c.layers, 1);
    EXPECT_EQ(c.first_layer, layers);
    layers += c.layers;
    max_cost = std::max(max_cost, c.cost);
  }
  EXPECT_EQ(layers, 126);
  EXPECT_DOUBLE_EQ(max_cost, 8.0);  // ceil(126.6 / 16) layers' worth is the best possible
  EXPECT_LE(chunks.back().layers, 7);
  EXPECT_TRUE(chunks.front().has_embedding);
  EXPECT_TRUE(chunks.back().has_output);
}

TEST(StagePartition, MatchesBruteForceOnSmallCases) {
  const std::vector<double> costs{3, 1, 4, 1, 5, 9, 2, 6};
  for (int k = 1; k <= 8; ++k) {
    const auto chunks = partition_layers(costs, k, 0.5, 2.0);
    double got = 0;
    for (const auto& c : chunks) got = std::max(got, c.cost);
    // Brute force over all cut sets.
    double best = 1e300;
    const int n = static_cast<int>(costs.size());
    for (unsigned mask = 0; mask < (1u << (n - 1)); ++mask) {
      if (__builtin_popcount(mask) != k - 1) continue;
      double worst = 0, cur = 0.5;
      int chunk = 0;
      for (int i = 0; i < n; ++i) {
        cur += costs[static_cast<size_t>(i)];
        if (i == n - 1 || (mask >> i) & 1u) {
          if (chunk == k - 1) cur += 2.0;
          worst = std::max(worst, cur);
          cur = 0;
          ++chunk;
        }
      }
      best = std::min(best, worst);
    }
    EXPECT_DOUBLE_EQ(got, best) << k;
  }
}

TEST(StagePartition, InterleavedChunksGoRoundRobin) {
  const std::vector<double> costs(16, 1.0);
  const auto chunks = partition_layers(costs, 8, 0, 0);
  const auto stage1 = chunks_of_stage(chunks, 4, 1);
  ASSERT_EQ(stage1.size(), 2u);
  EXPECT_EQ(stage1[0].first_layer, 2);
  EXPECT_EQ(stage1[1].first_layer, 10);
}

}  // namespace
}  // namespace trainsim
