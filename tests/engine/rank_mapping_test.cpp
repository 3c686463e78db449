#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "sim/core/error.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim {
namespace {

ClusterSpec nodes_of_eight(int nodes) {
  ClusterSpec c = *cluster_preset("dgx-h100");
  c.nodes = nodes;
  return c;
}

ParallelSpec layout(int tp, int pp, int dp) {
  ParallelSpec p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  return p;
}

TEST(RankMapping, DefaultOrderPutsTensorParallelInnermost) {
  const RankMapping m(layout(8, 2, 4), nodes_of_eight(8));
  EXPECT_EQ(m.group_of(0, GroupAxis::tp), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(m.group_of(0, GroupAxis::pp), (std::vector<int>{0, 8}));
  EXPECT_EQ(m.group_of(0, GroupAxis::dp), (std::vector<int>{0, 16, 32, 48}));
  EXPECT_EQ(m.group_of(19, GroupAxis::dp), (std::vector<int>{3, 19, 35, 51}));
  EXPECT_EQ(m.groups(GroupAxis::tp).size(), 8u);
  EXPECT_EQ(m.groups(GroupAxis::dp).size(), 16u);
  EXPECT_EQ(m.coordinate(27, ParallelAxis::pp), 1);
  EXPECT_TRUE(m.warnings().empty());
}

TEST(RankMapping, FollowsTheScenarioOrder) {
  ParallelSpec p = layout(2, 1, 4);
  p.order = {ParallelAxis::dp, ParallelAxis::tp, ParallelAxis::cp, ParallelAxis::pp};
  const RankMapping m(p, nodes_of_eight(1));
  EXPECT_EQ(m.group_of(0, GroupAxis::dp), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(m.group_of(0, GroupAxis::tp), (std::vector<int>{0, 4}));
}

TEST(RankMapping, RankAtIsTheRankWithThoseCoordinatesInEveryOrder) {
  ParallelSpec p = layout(2, 3, 4);
  p.cp = 2;
  std::array<ParallelAxis, 4> order{ParallelAxis::tp, ParallelAxis::cp, ParallelAxis::dp, ParallelAxis::pp};
  std::sort(order.begin(), order.end());
  do {
    p.order = order;
    const RankMapping m(p, nodes_of_eight(6));
    EXPECT_EQ(m.size(ParallelAxis::cp), 2);
    for (int rank = 0; rank < m.world_size(); ++rank)
      EXPECT_EQ(m.rank_at(m.coordinate(rank, ParallelAxis::tp), m.coordinate(rank, ParallelAxis::cp),
                          m.coordinate(rank, ParallelAxis::dp), m.coordinate(rank, ParallelAxis::pp)),
                rank);
    // What group_of walks to: TP rank 1 of pipeline stage 2's DP group, CP index 1.
    const int stage = m.group_of(0, GroupAxis::pp)[2];
    const int with_dp = m.group_of(stage, GroupAxis::dp)[3];
    const int with_cp = m.group_of(with_dp, GroupAxis::cp)[1];
    EXPECT_EQ(m.rank_at(1, 1, 3, 2), m.group_of(with_cp, GroupAxis::tp)[1]);
  } while (std::next_permutation(order.begin(), order.end()));
}

TEST(RankMapping, ExpertGroupsAreCarvedOutOfDataParallel) {
  ParallelSpec p = layout(8, 1, 4);
  p.ep = 2;
  const RankMapping m(p, nodes_of_eight(4));
  EXPECT_EQ(m.group_of(0, GroupAxis::ep), (std::vector<int>{0, 8}));
  EXPECT_EQ(m.group_of(17, GroupAxis::ep), (std::vector<int>{17, 25}));
  EXPECT_EQ(m.groups(GroupAxis::ep).size(), 16u);
}

TEST(RankMapping, WarnsWhenTensorParallelSpansNodes) {
  const RankMapping m(layout(16, 1, 2), nodes_of_eight(4));
  ASSERT_EQ(m.warnings().size(), 1u);
  EXPECT_NE(m.warnings()[0].find("2 of 2 TP groups span nodes"), std::string::npos) << m.warnings()[0];
}

TEST(RankMapping, RejectsALayoutThatDoesNotFillTheCluster) {
  EXPECT_THROW(RankMapping(layout(8, 1, 3), nodes_of_eight(2)), InputError);
}

}  // namespace
}  // namespace trainsim
