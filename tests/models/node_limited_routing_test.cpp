// Group-limited routing (model.router_num_groups, model.router_group_topk; models/moe_dispatch.hpp):
// each token's experts lie in at most M of the G groups, so DeepEP and HybridEP, which send a
// token across the network once per destination node, send fewer copies across NVLink
// domains as M falls; NCCL's alltoall, a row per (token, expert) pair, does not change.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "models/model_presets.hpp"
#include "models/moe_dispatch.hpp"

namespace trainsim {
namespace {

ModelSpec grouped(int experts, int top_k, int groups, int group_topk) {
  ModelSpec m;
  m.experts = experts;
  m.top_k = top_k;
  m.router_num_groups = groups;
  m.router_group_topk = group_topk;
  return m;
}

// Mean distinct units (of experts / units experts each) a token reaches when it draws
// group_topk of the groups and then top_k experts among theirs, both uniformly.
double sampled_units(const ModelSpec& m, int units, int tokens) {
  std::mt19937_64 rng(11);
  const int per_group = m.experts / m.router_num_groups, per_unit = m.experts / units;
  std::vector<int> groups(static_cast<size_t>(m.router_num_groups));
  for (int g = 0; g < m.router_num_groups; ++g) groups[static_cast<size_t>(g)] = g;
  double total = 0;
  for (int t = 0; t < tokens; ++t) {
    std::shuffle(groups.begin(), groups.end(), rng);
    std::vector<int> pool;
    for (int i = 0; i < m.router_group_topk; ++i)
      for (int e = 0; e < per_group; ++e) pool.push_back(groups[static_cast<size_t>(i)] * per_group + e);
    std::shuffle(pool.begin(), pool.end(), rng);
    std::vector<bool> hit(static_cast<size_t>(units), false);
    for (int i = 0; i < m.top_k; ++i) hit[static_cast<size_t>(pool[static_cast<size_t>(i)] / per_unit)] = true;
    total += static_cast<double>(std::count(hit.begin(), hit.end(), true));
  }
  return total / tokens;
}

TEST(NodeLimitedRouting, DestinationUnitsMatchSampledRouting) {
  // DeepSeek-V3 (256 experts, top 8, 8 groups, 4 a token) over 64 ranks and over 8 nodes.
  const ModelSpec ds = grouped(256, 8, 8, 4);
  EXPECT_NEAR(expected_destination_units(ds, 64), sampled_units(ds, 64, 20000), 0.03);
  EXPECT_NEAR(expected_destination_units(ds, 8), sampled_units(ds, 8, 20000), 0.02);
  // Groups that straddle the units (16 experts a group, 12 a unit) and units holding several
  // groups (4 groups of 24 in 2 units).
  const ModelSpec straddling = grouped(96, 6, 6, 2);
  EXPECT_NEAR(expected_destination_units(straddling, 8), sampled_units(straddling, 8, 20000), 0.02);
  const ModelSpec wide = grouped(96, 6, 4, 2);
  EXPECT_NEAR(expected_destination_units(wide, 2), sampled_units(wide, 2, 20000), 0.01);
}

TEST(NodeLimitedRouting, AGroupANodeReachesAtMostTheGroupsATokenPicks) {
  // One group a node: a token's experts lie on at most M nodes; with M = 4 (DeepSeek-V3's)
  // or fewer, its 8 experts among M x 32 almost always reach all M (the bound is tight).
  const double unlimited = expected_destination_ranks(256, 8, 8);
  for (int m = 1; m <= 8; ++m) {
    const double nodes = expected_destination_units(grouped(256, 8, 8, m), 8);
    EXPECT_LE(nodes, m + 1e-12) << m;
    EXPECT_LE(nodes, unlimited + 1e-12) << m;
    if (m <= 4) {
      EXPECT_GT(nodes, 0.9 * m) << m;
    }
  }
  EXPECT_DOUBLE_EQ(expected_destination_units(grouped(256, 8, 8, 1), 8), 1.0);
}

TEST(NodeLimitedRouting, BytesAcrossDomainsShrinkWithTheGroupsATokenMayUse) {
  // DeepSeek-V3 at EP 64 over 8 nodes of 8 GPUs, DeepEP: the share of a pairwise all-to-all's
  // bytes that crosses to another node falls with M, from the unlimited 0.690.
  ModelSpec m = *model_preset("deepseek-v3");
  ParallelSpec p;
  p.ep = 64;
  p.moe_dispatcher = MoeDispatcher::deepep;
  const double unlimited = remote_peer_share(m, p, 8);
  m.router_num_groups = 8;
  double previous = unlimited;
  for (int topk = 8; topk >= 1; --topk) {
    m.router_group_topk = topk;
    const double share = remote_peer_share(m, p, 8);
    if (topk == 8) {
      EXPECT_EQ(share, unlimited);  // every group allowed: no limit, bit for bit
    } else {
      EXPECT_LT(share, previous) << topk;
    }
    previous = share;
  }
  // M = 4, DeepSeek-V3's own: 3.63 nodes for 7.36 ranks a token (0.493), against 5.29 for 7.68.
  m.router_group_topk = 4;
  EXPECT_NEAR(remote_peer_share(m, p, 8), expected_destination_units(m, 8) / expected_destination_units(m, 64), 1e-15);
  EXPECT_NEAR(remote_peer_share(m, p, 8), 0.493, 0.001);
  // NCCL's alltoall sends a row per (token, expert): its share does not depend on the groups.
  p.moe_dispatcher = MoeDispatcher::alltoall;
  EXPECT_EQ(remote_peer_share(m, p, 8), 1.0);
  EXPECT_EQ(dispatched_rows_per_token(m, p), 8.0);
}

TEST(NodeLimitedRouting, WithoutGroupsNothingChanges) {
  for (const auto& [experts, top_k, units] : {std::tuple{128, 8, 8}, {256, 8, 64}, {8, 2, 8}, {64, 6, 16}}) {
    ModelSpec m = grouped(experts, top_k, 0, 0);
    EXPECT_EQ(expected_destination_units(m, units), expected_destination_ranks(experts, top_k, units));
    m.router_num_groups = 1;  // one group, or every group picked, is no limit
    m.router_group_topk = 1;
    EXPECT_EQ(expected_destination_units(m, units), expected_destination_ranks(experts, top_k, units));
  }
}

}  // namespace
}  // namespace trainsim
