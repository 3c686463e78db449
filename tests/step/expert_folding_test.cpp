// Expert tensor parallelism and MoE parallel folding (issue 16): the expert layers decompose
// a stage's tp x cp x dp ranks as expert_tp x ep x expert-dp (Megatron-Core's expert rank
// generator), so experts may be split over fewer ranks than the dense layers and EP may span
// the dense TP ranks. With expert_tp = tp nothing changes.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "models/layer_workload.hpp"
#include "models/memory_budget.hpp"
#include "models/stage_parameters.hpp"
#include "sim/compute/roofline_compute_model.hpp"
#include "sim/step/gradient_groups.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

// Mixtral's layer shapes with TP 2 and EP 8 on two DGX H100 nodes (16 ranks, one stage).
const Settings k_mixtral{{"model.preset", "mixtral-8x7b"},       {"model.layers", "2"}, {"model.seq_len", "2048"},
                         {"training.grad_accum", "2"},           {"parallel.tp", "2"},  {"parallel.ep", "8"},
                         {"parallel.sequence_parallel", "true"}, {"cluster.nodes", "2"}};

Scenario folded(int expert_tp, Settings extra = {}) {
  extra.push_back({"parallel.expert_tp", std::to_string(expert_tp)});
  return scenario(k_mixtral, extra);
}

TEST(ExpertFolding, GroupsDecomposeTheStageExpertTpFastest) {
  const Scenario s = folded(1);
  const RankMapping m(s.parallel, s.cluster);
  // expert_tp 1: eight consecutive ranks form an EP group, inside one node, across the dense
  // TP pairs; the expert-data-parallel group pairs the nodes.
  EXPECT_EQ(m.group_of(0, GroupAxis::ep), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(m.group_of(9, GroupAxis::ep), (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(m.group_of(3, GroupAxis::etp), (std::vector<int>{3}));
  EXPECT_EQ(m.group_of(3, GroupAxis::edp), (std::vector<int>{3, 11}));
  // Without folding (expert_tp = tp = 2) EP is carved out of DP: stride tp, across the nodes.
  const Scenario plain = scenario(k_mixtral);
  const RankMapping d(plain.parallel, plain.cluster);
  EXPECT_EQ(d.group_of(0, GroupAxis::ep), (std::vector<int>{0, 2, 4, 6, 8, 10, 12, 14}));
  EXPECT_EQ(d.group_of(0, GroupAxis::etp), d.group_of(0, GroupAxis::tp));
  EXPECT_EQ(d.group_of(1, GroupAxis::edp), (std::vector<int>{1}));
}

TEST(ExpertFolding, EachExpertAxisPartitionsTheRanks) {
  for (const int etp : {1, 2, 4}) {
    const Scenario s =
        scenario(k_mixtral, {{"parallel.tp", "4"}, {"parallel.ep", "4"}, {"parallel.expert_tp", std::to_string(etp)}});
    const RankMapping m(s.parallel, s.cluster);
    for (const auto& [axis, size] :
         {std::pair{GroupAxis::ep, 4}, std::pair{GroupAxis::etp, etp}, std::pair{GroupAxis::edp, 16 / (4 * etp)}}) {
      std::multiset<int> seen;
      for (const auto& g : m.groups(axis)) {
        EXPECT_EQ(static_cast<int>(g.size()), size) << etp;
        seen.insert(g.begin(), g.end());
      }
      EXPECT_EQ(seen.size(), 16u);
      EXPECT_EQ(std::set<int>(seen.begin(), seen.end()).size(), 16u);  // each rank once
    }
    // A rank's ep, etp and edp groups meet only in the rank.
    for (int r = 0; r < 16; ++r) {
      const auto ep = m.group_of(r, GroupAxis::ep), etpg = m.group_of(r, GroupAxis::etp);
      std::vector<int> both;
      std::set_intersection(ep.begin(), ep.end(), etpg.begin(), etpg.end(), std::back_inserter(both));
      EXPECT_EQ(both, std::vector<int>{r});
    }
  }
}

TEST(ExpertFolding, ExpertWeightsSplitOverExpertTpTimesEp) {
  const Scenario one = folded(1), two = scenario(k_mixtral);
  const std::vector<ModelChunk> chunks = balanced_chunks(one.model, one.parallel);
  const StageParameters a = stage_parameters(one.model, one.parallel, 0, chunks);
  const StageParameters b = stage_parameters(two.model, two.parallel, 0, chunks);
  EXPECT_DOUBLE_EQ(a.expert, 2.0 * b.expert);  // experts over 8 ranks instead of 16
  EXPECT_DOUBLE_EQ(a.dense, b.dense);          // attention still over TP 2
  // ZeRO shards each expert's states over its expert-data-parallel group: 16 / (1 x 8).
  EXPECT_EQ(folded(1, {{"parallel.zero", "1"}}).parallel.expert_shard_ranks(), 2);
  EXPECT_EQ(scenario(k_mixtral, {{"parallel.zero", "1"}}).parallel.expert_shard_ranks(), 1);
}

double op_flops(const PassOps& ops, const std::string& name) {
  for (const Op& op : ops.forward)
    if (op.name == name) return op.flops;
  return -1;
}

TEST(ExpertFolding, ExpertGemmsTradeWidthForTokens) {
  const Scenario one = folded(1), two = scenario(k_mixtral);
  const PassOps a = transformer_layer_ops(one.model, one.training, one.parallel);
  const PassOps b = transformer_layer_ops(two.model, two.training, two.parallel);
  // The same work per rank: with expert_tp 1 a rank runs its experts whole on the top_k
  // copies of T / tp tokens of each of its ep group's ranks.
  EXPECT_DOUBLE_EQ(op_flops(a, "experts.up"), op_flops(b, "experts.up"));
  const auto gemm_of = [](const PassOps& ops) {
    for (const Op& op : ops.forward)
      if (op.name == "experts.up") return op.gemm;
    return GemmShape{};
  };
  // Rows per expert T k ep expert_tp / (tp E) = 2048 x 2 x 8 x expert_tp / (2 x 8).
  EXPECT_DOUBLE_EQ(gemm_of(a).m, 2048.0);
  EXPECT_DOUBLE_EQ(gemm_of(b).m, 4096.0);
  EXPECT_DOUBLE_EQ(gemm_of(a).n, 2.0 * gemm_of(b).n);  // the whole expert's width
}

int collectives(const PassCost& pass, CommGroup group) {
  int n = 0;
  for (const GroupCollective& c : pass.collectives)
    if (c.group == group) n += c.count;
  return n;
}

StepCosts costs_of(const Scenario& s) {
  const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
  return build_step_costs(s, compute, false);
}

TEST(ExpertFolding, FoldedMoeLayersMoveTheirMlpCollectivesToTheExpertGroups) {
  const PassCost plain = costs_of(scenario(k_mixtral)).stages[0].chunks[0].forward;
  const PassCost one = costs_of(folded(1)).stages[0].chunks[0].forward;
  // Two layers: without folding each has 2 all-gathers and 2 reduce-scatters on TP; folded
  // with expert_tp 1, only the attention's (the experts run whole on their tokens). Both
  // also have the embedding's reduce-scatter and the output layer's gather.
  EXPECT_EQ(collectives(plain, CommGroup::tp), 8 + 2);
  EXPECT_EQ(collectives(one, CommGroup::tp), 4 + 2);
  EXPECT_EQ(collectives(one, CommGroup::etp), 0);
  EXPECT_EQ(collectives(one, CommGroup::ep), collectives(plain, CommGroup::ep));
  // TP 4 with experts over 2 of its ranks: the received tokens are gathered over those two.
  const Scenario s = scenario(k_mixtral, {{"parallel.tp", "4"}, {"parallel.ep", "4"}, {"parallel.expert_tp", "2"}});
  const PassCost two = costs_of(s).stages[0].chunks[0].forward;
  EXPECT_EQ(collectives(two, CommGroup::etp), 2 * 2);
  for (const GroupCollective& c : two.collectives) {
    if (c.group == CommGroup::etp) {  // expert_tp x the rank's T / tp tokens x top_k x h x 2 bytes
      EXPECT_DOUBLE_EQ(c.bytes, 2.0 * (2048.0 / 4) * s.model.top_k * s.model.hidden * 2.0);
    }
  }
}

TEST(ExpertFolding, ExpertGradientsReduceOverTheExpertDataParallelGroup) {
  const Scenario s = folded(1, {{"parallel.zero", "1"}});
  const RankMapping m(s.parallel, s.cluster);
  EXPECT_EQ(gradient_group(m, s.parallel, 3, true), (std::vector<int>{3, 11}));
  EXPECT_EQ(gradient_group(m, s.parallel, 3, false), (std::vector<int>{1, 3, 5, 7, 9, 11, 13, 15}));
  // HSDP with shard groups of 4 dp ranks (8 stage ranks): the expert shard group is the one
  // node's part of the expert-data-parallel group; the replicas span the nodes.
  const Scenario h = folded(1, {{"parallel.zero", "3"}, {"parallel.zero_shard_size", "4"}});
  const RankMapping hm(h.parallel, h.cluster);
  EXPECT_EQ(gradient_group(hm, h.parallel, 3, true, GradientScope::shard), (std::vector<int>{3}));
  EXPECT_EQ(gradient_group(hm, h.parallel, 3, true, GradientScope::replicas), (std::vector<int>{3, 11}));
}

TEST(ExpertFolding, EpInsideTheNodeBeatsEpAcrossTheNetwork) {
  const auto ep_comm = [](const Scenario& s) {
    return engine::test::run_isolated([&] {
      const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
      const StepResult r = simulate_step(s, compute);
      return std::vector<double>{r.breakdown_s.ep_comm, r.comm_bytes_per_gpu.ep};
    });
  };
  const std::vector<double> across = ep_comm(scenario(k_mixtral));  // EP stride 2: both nodes
  const std::vector<double> inside = ep_comm(folded(1));            // EP on one node's NVLink
  EXPECT_DOUBLE_EQ(inside[1], across[1]);                           // the same all-to-all bytes
  EXPECT_LT(inside[0], 0.5 * across[0]);
}

TEST(ExpertFolding, ExpertTpEqualToTpChangesNothing) {
  const auto step = [](const Scenario& s) {
    return engine::test::run_isolated([&] {
      const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
      return std::vector<double>{simulate_step(s, compute).step_time_s};
    });
  };
  EXPECT_EQ(step(scenario(k_mixtral)), step(folded(2)));
}

}  // namespace
}  // namespace trainsim
