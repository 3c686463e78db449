// ZeRO model-state accounting against Rajbhandari et al. 2020, Table 1 and Figure 1
// (../shared/validation/public.md B1).

#include <gtest/gtest.h>

#include <algorithm>

#include "models/model_state_memory.hpp"

namespace trainsim {
namespace {

// The paper prints 3 significant digits, sometimes truncated (257.75 -> 257).
void expect_table_value(double computed_gb, double table_gb) {
  EXPECT_NEAR(computed_gb, table_gb, std::max(0.005 * table_gb, 0.01)) << "table value " << table_gb;
}

struct TableRow {
  double psi;
  int dp;
  double baseline_gb, pos_gb, pos_g_gb, pos_g_p_gb;
};

TEST(ZeroModelStates, MixedPrecisionAdamIs16BytesPerParameter) {
  const auto per = state_bytes_per_parameter(Precision::fp16, Optimizer::adam);
  EXPECT_DOUBLE_EQ(per.weights, 2.0);
  EXPECT_DOUBLE_EQ(per.gradients, 2.0);
  EXPECT_DOUBLE_EQ(per.optimizer, 12.0);  // K = 12
  EXPECT_DOUBLE_EQ(state_bytes_per_parameter(Precision::bf16, Optimizer::adam).optimizer, 12.0);
}

TEST(ZeroModelStates, Figure1) {
  const auto per = state_bytes_per_parameter(Precision::fp16, Optimizer::adam);
  const double psi = 7.5e9;
  EXPECT_NEAR(model_state_bytes(psi, per, 0, 64).total() / 1e9, 120.0, 1e-9);
  expect_table_value(model_state_bytes(psi, per, 1, 64).total() / 1e9, 31.4);
  expect_table_value(model_state_bytes(psi, per, 2, 64).total() / 1e9, 16.6);
  expect_table_value(model_state_bytes(psi, per, 3, 64).total() / 1e9, 1.88);
}

TEST(ZeroModelStates, Table1AllRows) {
  const TableRow rows[] = {
      {7.5e9, 1, 120, 120, 120, 120},        {7.5e9, 4, 120, 52.5, 41.3, 30},
      {7.5e9, 16, 120, 35.6, 21.6, 7.5},     {7.5e9, 64, 120, 31.4, 16.6, 1.88},
      {7.5e9, 256, 120, 30.4, 15.4, 0.47},   {7.5e9, 1024, 120, 30.1, 15.1, 0.12},
      {128e9, 1, 2048, 2048, 2048, 2048},    {128e9, 4, 2048, 896, 704, 512},
      {128e9, 16, 2048, 608, 368, 128},      {128e9, 64, 2048, 536, 284, 32},
      {128e9, 256, 2048, 518, 263, 8},       {128e9, 1024, 2048, 513, 257, 2},
      {1e12, 1, 16000, 16000, 16000, 16000}, {1e12, 4, 16000, 7000, 5500, 4000},
      {1e12, 16, 16000, 4750, 2875, 1000},   {1e12, 64, 16000, 4187, 2218, 250},
      {1e12, 256, 16000, 4046, 2054, 62.5},  {1e12, 1024, 16000, 4011, 2013, 15.6},
  };
  const auto per = state_bytes_per_parameter(Precision::fp16, Optimizer::adam);
  for (const TableRow& r : rows) {
    SCOPED_TRACE("psi " + std::to_string(r.psi) + " dp " + std::to_string(r.dp));
    expect_table_value(model_state_bytes(r.psi, per, 0, r.dp).total() / 1e9, r.baseline_gb);
    expect_table_value(model_state_bytes(r.psi, per, 1, r.dp).total() / 1e9, r.pos_gb);
    expect_table_value(model_state_bytes(r.psi, per, 2, r.dp).total() / 1e9, r.pos_g_gb);
    expect_table_value(model_state_bytes(r.psi, per, 3, r.dp).total() / 1e9, r.pos_g_p_gb);
  }
}

TEST(ZeroModelStates, StagesShardTheRightCategories) {
  const auto per = state_bytes_per_parameter(Precision::bf16, Optimizer::adam);
  const double psi = 1e9;
  const auto s1 = model_state_bytes(psi, per, 1, 8);
  EXPECT_DOUBLE_EQ(s1.weights, 2e9);
  EXPECT_DOUBLE_EQ(s1.gradients, 2e9);
  EXPECT_DOUBLE_EQ(s1.optimizer_states, 12e9 / 8);
  const auto s2 = model_state_bytes(psi, per, 2, 8);
  EXPECT_DOUBLE_EQ(s2.gradients, 2e9 / 8);
  EXPECT_DOUBLE_EQ(s2.weights, 2e9);
  const auto s3 = model_state_bytes(psi, per, 3, 8);
  EXPECT_DOUBLE_EQ(s3.weights, 2e9 / 8);
}

}  // namespace
}  // namespace trainsim
