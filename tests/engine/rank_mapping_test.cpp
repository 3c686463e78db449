#include <gtest/gtest.h>

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
