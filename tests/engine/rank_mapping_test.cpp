#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
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

// Megatron-Core's default order, tp-cp-ep-dp-pp: TP innermost, PP outermost.
TEST(RankMapping, DefaultOrderPutsTensorParallelInnermostAndPipelineOutermost) {
  const RankMapping m(layout(8, 2, 4), nodes_of_eight(8));
  EXPECT_EQ(m.group_of(0, GroupAxis::tp), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(m.group_of(0, GroupAxis::pp), (std::vector<int>{0, 32}));
  EXPECT_EQ(m.group_of(0, GroupAxis::dp), (std::vector<int>{0, 8, 16, 24}));
  EXPECT_EQ(m.group_of(19, GroupAxis::dp), (std::vector<int>{3, 11, 19, 27}));
  EXPECT_EQ(m.groups(GroupAxis::tp).size(), 8u);
  EXPECT_EQ(m.groups(GroupAxis::dp).size(), 16u);
  EXPECT_EQ(m.coordinate(27, ParallelAxis::pp), 0);
  EXPECT_EQ(m.coordinate(35, ParallelAxis::pp), 1);
  EXPECT_TRUE(m.warnings().empty());
}

// trainsim's former default, tp-cp-pp-dp, keeps its groups.
TEST(RankMapping, FormerDefaultOrderKeepsItsGroups) {
  ParallelSpec p = layout(8, 2, 4);
  p.order = {ParallelAxis::tp, ParallelAxis::cp, ParallelAxis::pp, ParallelAxis::dp};
  const RankMapping m(p, nodes_of_eight(8));
  EXPECT_EQ(m.group_of(0, GroupAxis::pp), (std::vector<int>{0, 8}));
  EXPECT_EQ(m.group_of(19, GroupAxis::dp), (std::vector<int>{3, 19, 35, 51}));
  EXPECT_EQ(m.coordinate(27, ParallelAxis::pp), 1);
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
    p.order = {order[0], order[1], order[2], order[3]};
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

// Megatron-Core's orders, groups worked out by hand from RankGenerator and
// generate_masked_orthogonal_rank_groups (megatron/core/parallel_state.py @ d98e8a64): a group
// of an axis varies that axis' coordinate, its stride the product of the sizes before it in
// the order; the dense generator gives ep size 1, the expert one gives cp size 1, expert_tp
// at tp's place and the expert data parallelism at dp's.

ParallelSpec moe(int tp, int cp, int ep, int dp, int pp, int expert_tp = 0) {
  ParallelSpec p = layout(tp, pp, dp);
  p.cp = cp;
  p.ep = ep;
  p.expert_tp = expert_tp;
  return p;
}

// tp2 cp1 ep4 dp8 pp2, 32 GPUs: dense strides tp 1, dp 2, pp 16; expert (etp 2, ep 4,
// expert dp 2) strides 1, 2, 8, pp 16.
TEST(RankMapping, MegatronDefaultGroupsForTp2Ep4Dp8Pp2) {
  const RankMapping m(moe(2, 1, 4, 8, 2), nodes_of_eight(4));
  EXPECT_EQ(m.group_of(0, GroupAxis::tp), (std::vector<int>{0, 1}));
  EXPECT_EQ(m.group_of(0, GroupAxis::dp), (std::vector<int>{0, 2, 4, 6, 8, 10, 12, 14}));
  EXPECT_EQ(m.group_of(0, GroupAxis::pp), (std::vector<int>{0, 16}));
  EXPECT_EQ(m.group_of(0, GroupAxis::ep), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(m.group_of(9, GroupAxis::ep), (std::vector<int>{9, 11, 13, 15}));
  EXPECT_EQ(m.group_of(0, GroupAxis::etp), (std::vector<int>{0, 1}));
  EXPECT_EQ(m.group_of(0, GroupAxis::edp), (std::vector<int>{0, 8}));
  EXPECT_EQ(m.group_of(19, GroupAxis::edp), (std::vector<int>{19, 27}));
  EXPECT_EQ(m.groups(GroupAxis::ep).size(), 8u);
  // The former default tp-cp-pp-dp put the same EP group on two nodes: ranks 0, 4, 8, 12.
  ParallelSpec former = moe(2, 1, 4, 8, 2);
  former.order = {ParallelAxis::tp, ParallelAxis::cp, ParallelAxis::pp, ParallelAxis::dp};
  EXPECT_EQ(RankMapping(former, nodes_of_eight(4)).group_of(0, GroupAxis::ep), (std::vector<int>{0, 4, 8, 12}));
}

// Folding: tp4 cp2 dp2 pp2 with expert_tp 1 and ep 8. Dense strides tp 1, cp 4, dp 8, pp 16;
// expert (etp 1, ep 8, expert dp 2) strides 1, 1, 8, pp 16.
TEST(RankMapping, MegatronDefaultFoldsExpertsOverTpAndCp) {
  const RankMapping m(moe(4, 2, 8, 2, 2, 1), nodes_of_eight(4));
  EXPECT_EQ(m.group_of(0, GroupAxis::cp), (std::vector<int>{0, 4}));
  EXPECT_EQ(m.group_of(0, GroupAxis::dp), (std::vector<int>{0, 8}));
  EXPECT_EQ(m.group_of(13, GroupAxis::ep), (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(m.group_of(3, GroupAxis::etp), (std::vector<int>{3}));
  EXPECT_EQ(m.group_of(3, GroupAxis::edp), (std::vector<int>{3, 11}));
  EXPECT_EQ(m.group_of(3, GroupAxis::pp), (std::vector<int>{3, 19}));
}

// NVIDIA's MLPerf configs map tp-pp-dp; cp and ep, left out, have size 1.
TEST(RankMapping, OrdersNamingFewerAxes) {
  ParallelSpec p = layout(4, 2, 4);
  p.order = *RankOrder::parse("tp-pp-dp");
  const RankMapping m(p, nodes_of_eight(4));
  EXPECT_EQ(m.group_of(0, GroupAxis::pp), (std::vector<int>{0, 4}));
  EXPECT_EQ(m.group_of(0, GroupAxis::dp), (std::vector<int>{0, 8, 16, 24}));
  EXPECT_EQ(m.group_of(0, GroupAxis::edp), m.group_of(0, GroupAxis::dp));
  p.order = *RankOrder::parse("tp-dp-pp");
  const RankMapping d(p, nodes_of_eight(4));
  EXPECT_EQ(d.group_of(0, GroupAxis::dp), (std::vector<int>{0, 4, 8, 12}));
  EXPECT_EQ(d.group_of(0, GroupAxis::pp), (std::vector<int>{0, 16}));
}

// pp need not be last when the expert data parallelism is dp and the pipeline groups agree:
// tp2 ep2 dp4 pp2 with expert_tp 1, tp-cp-ep-pp-dp (dense pp stride 2 = expert 1 x 2).
TEST(RankMapping, PipelineInsideDataParallelWhenMegatronAllowsIt) {
  ParallelSpec p = moe(2, 1, 2, 4, 2, 1);
  p.order = *RankOrder::parse("tp-cp-ep-pp-dp");
  const RankMapping m(p, nodes_of_eight(2));
  EXPECT_EQ(m.group_of(0, GroupAxis::pp), (std::vector<int>{0, 2}));
  EXPECT_EQ(m.group_of(0, GroupAxis::ep), (std::vector<int>{0, 1}));
  EXPECT_EQ(m.group_of(0, GroupAxis::edp), (std::vector<int>{0, 4, 8, 12}));
}

TEST(RankOrder, ReadsMegatronStrings) {
  EXPECT_EQ(RankOrder().text(), "tp-cp-ep-dp-pp");
  EXPECT_EQ(RankOrder::parse("tp-cp-ep-dp-pp"), RankOrder());
  EXPECT_EQ(RankOrder::parse("tp-pp-dp")->text(), "tp-pp-dp");
  EXPECT_TRUE(RankOrder::parse("tp-cp-pp-dp")->carves_experts_from_stages());
  EXPECT_FALSE(RankOrder::parse("tp-cp-ep-dp-pp")->carves_experts_from_stages());
  EXPECT_FALSE(RankOrder::parse("tp-dp-pp")->carves_experts_from_stages());
  EXPECT_EQ(RankOrder::parse("TP-DP-PP")->text(), "tp-dp-pp");  // Megatron-Core lower-cases it
  for (const char* bad : {"", "tp-tp-dp", "tp-xp-dp", "tp--dp", "tp-dp-", "tp-dp-pp-gtp_remat"})
    EXPECT_FALSE(RankOrder::parse(bad)) << bad;
}

// Megatron-Core's refusals (RankGenerator, initialize_model_parallel).
TEST(RankOrder, RefusesWhatMegatronRefuses) {
  const auto rule = [](ParallelSpec p, const char* order) {
    p.order = *RankOrder::parse(order);
    return rank_order_rule(p).value_or("");
  };
  EXPECT_NE(rule(moe(2, 1, 4, 8, 2), "tp-pp-dp").find("names no ep, so parallel.ep = 4 must be 1"),
            std::string::npos);
  EXPECT_NE(rule(moe(2, 2, 1, 4, 2), "tp-dp-pp").find("names no cp"), std::string::npos);
  EXPECT_NE(rule(moe(2, 1, 2, 4, 2), "tp-cp-ep-pp-dp").find("must end with pp"), std::string::npos);
  EXPECT_NE(rule(moe(2, 1, 2, 4, 2, 1), "tp-pp-ep-dp").find("pipeline groups must be the same"),
            std::string::npos);
  EXPECT_EQ(rule(moe(2, 1, 2, 4, 2, 1), "tp-cp-ep-pp-dp"), "");
  EXPECT_EQ(rule(moe(2, 1, 4, 8, 2), "tp-cp-ep-dp-pp"), "");
  EXPECT_EQ(rule(moe(2, 1, 4, 8, 2), "dp-ep-cp-tp-pp"), "");  // ep and dp need not be adjacent either way
  EXPECT_EQ(rule(moe(2, 2, 4, 8, 2), "tp-cp-pp-dp"), "");     // a former order: never refused
  ParallelSpec p = moe(2, 1, 4, 8, 2);
  p.order = *RankOrder::parse("tp-pp-dp");
  EXPECT_THROW(RankMapping(p, nodes_of_eight(4)), InputError);
}

}  // namespace
}  // namespace trainsim
