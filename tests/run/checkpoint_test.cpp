// Checkpoint sizes against published runs, and the optimum-interval formulas.

#include <gtest/gtest.h>

#include <cmath>

#include "models/checkpoint_size.hpp"
#include "models/model_presets.hpp"
#include "sim/run/checkpoint_interval.hpp"

namespace trainsim {
namespace {

TEST(CheckpointSize, Bloom176BIsAbout2Point3Terabytes) {
  // BLOOM-176B (public.md E2): 2.3 TB full checkpoint; 70 layers, hidden 14336, 112 heads,
  // vocab 250880, TP 4 x PP 12 x DP 8 on 384 A100s, bf16 Adam with ZeRO-1.
  ModelSpec m = *model_preset("gpt3-175b");
  m.layers = 70;
  m.hidden = 14336;
  m.heads = m.kv_heads = 112;
  m.ffn_hidden = 4 * 14336;
  m.vocab = 250880;
  TrainingSpec tr;
  ParallelSpec p;
  p.tp = 4;
  p.pp = 12;
  p.dp = 8;
  p.zero = 1;
  const CheckpointSize c = checkpoint_size(m, tr, p);
  EXPECT_NEAR(c.total_bytes / 2.3e12, 1.0, 0.10);
  EXPECT_EQ(c.shards, 4 * 12 * 8);
}

TEST(CheckpointSize, Megatron1TIs13Point8Terabytes) {
  // Narayanan et al. §5.10 (public.md E3): 13.8 TB for the 1T model (Table 1's last row).
  ModelSpec m = *model_preset("gpt3-175b");
  m.layers = 128;
  m.hidden = 25600;
  m.heads = m.kv_heads = 160;
  m.ffn_hidden = 4 * 25600;
  m.vocab = 51200;
  TrainingSpec tr;
  tr.precision = Precision::fp16;
  ParallelSpec p;
  p.tp = 8;
  p.pp = 64;
  p.dp = 6;
  const CheckpointSize c = checkpoint_size(m, tr, p);
  EXPECT_NEAR(c.total_bytes / 13.8e12, 1.0, 0.05);
}

TEST(CheckpointInterval, YoungAndDaly) {
  const double delta = 60, mtti = 3 * 3600.0;
  EXPECT_DOUBLE_EQ(young_interval_s(delta, mtti), std::sqrt(2 * delta * mtti));
  const double x = delta / (2 * mtti);
  EXPECT_DOUBLE_EQ(daly_interval_s(delta, mtti), std::sqrt(2 * delta * mtti) * (1 + std::sqrt(x) / 3 + x / 9) - delta);
  // Checkpoints far cheaper than the MTTI: Daly tends to Young.
  EXPECT_NEAR(daly_interval_s(1, 1e6) / young_interval_s(1, 1e6), 1.0, 0.01);
  // A checkpoint that costs more than twice the MTTI: checkpoint every MTTI.
  EXPECT_DOUBLE_EQ(daly_interval_s(3 * mtti, mtti), mtti);
}

}  // namespace
}  // namespace trainsim
