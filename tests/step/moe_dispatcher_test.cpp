// The MoE token dispatchers' collectives (parallel.moe_dispatcher; models/moe_dispatch.hpp):
// Megatron-Core's alltoall path adds the probabilities' all-to-all and the token counts'
// all-gather to the tokens' two all-to-alls; DeepEP and HybridEP send fewer rows, and HybridEP
// all-gathers the routing maps.

#include <gtest/gtest.h>

#include "models/moe_dispatch.hpp"
#include "sim/compute/roofline_compute_model.hpp"
#include "sim/step/stage_costs.hpp"
#include "tests/step/moe_step_costs.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using engine::CollectiveOp;
using testing::scenario;
using testing::Settings;

// Qwen3 30B-A3B, 2 layers, EP 8 on one DGX H100.
const Settings& k_qwen = testing::k_small_qwen3;

StepCosts costs_of(const Scenario& s) {
  return testing::roofline_costs(s);
}

using testing::ep_collectives;

TEST(MoeDispatcher, AlltoallSendsTokensProbabilitiesAndCounts) {
  const Scenario s = scenario(k_qwen);
  const StepCosts costs = costs_of(s);
  const ChunkCosts& c = costs.stages[0].chunks[0];
  const double tokens = 4096, rows = tokens * 8;
  const double token_bytes = rows * 2048 * 2.0;
  using Calls = std::vector<std::pair<int, double>>;
  // Forward: per layer the counts' all-gather (128 int64 per rank of 8), the tokens' dispatch
  // and combine, the probabilities' all-to-all (one fp32 per row).
  EXPECT_EQ(ep_collectives(c.forward, CollectiveOp::all_gather), (Calls{{2, 8 * 128 * 8.0}}));
  EXPECT_EQ(ep_collectives(c.forward, CollectiveOp::all_to_all), (Calls{{4, token_bytes}, {2, rows * 4.0}}));
  // Backward: the gradients' all-to-alls; the split sizes are already on the host.
  EXPECT_TRUE(ep_collectives(c.backward, CollectiveOp::all_gather).empty());
  EXPECT_EQ(ep_collectives(c.backward, CollectiveOp::all_to_all), (Calls{{4, token_bytes}, {2, rows * 4.0}}));
}

// DeepEP and HybridEP: the tokens' two all-to-alls, each token once per destination rank; HybridEP's
// forward all-gathers the routing maps first (one bool per token and expert of each of the 8 ranks).
TEST(MoeDispatcher, DeepEpAndHybridEpSendEachTokenOncePerRank) {
  using Calls = std::vector<std::pair<int, double>>;
  for (const char* d : {"deepep", "hybridep"}) {
    const Scenario s = scenario(k_qwen, {{"parallel.moe_dispatcher", d}});
    const StepCosts costs = costs_of(s);
    const ChunkCosts& c = costs.stages[0].chunks[0];
    const double bytes = 4096 * expected_destination_ranks(128, 8, 8) * 2048 * 2.0;
    const bool hybridep = std::string(d) == "hybridep";
    EXPECT_EQ(ep_collectives(c.forward, CollectiveOp::all_gather),
              hybridep ? (Calls{{2, 8 * 4096 * 128 * 1.0}}) : Calls{})
        << d;
    EXPECT_TRUE(ep_collectives(c.backward, CollectiveOp::all_gather).empty()) << d;
    for (const PassCost* pass : {&c.forward, &c.backward})
      EXPECT_EQ(ep_collectives(*pass, CollectiveOp::all_to_all), (Calls{{4, bytes}})) << d;
  }
}

TEST(MoeDispatcher, FewerBytesMakeTheStepFasterAndTheExpertTrafficSmaller) {
  const std::vector<double> alltoall = testing::step_outputs(scenario(k_qwen), {});
  const std::vector<double> deepep =
      testing::step_outputs(scenario(k_qwen, {{"parallel.moe_dispatcher", "deepep"}}), {});
  constexpr size_t k_step = 0, k_ep_comm = 13, k_ep_bytes = 20;
  EXPECT_LT(deepep[k_step], alltoall[k_step]);
  EXPECT_LT(deepep[k_ep_comm], alltoall[k_ep_comm]);
  // The tokens' bytes by expected_destination_ranks / top_k; the alltoall path's
  // probabilities and counts on top.
  const double ratio = expected_destination_ranks(128, 8, 8) / 8;
  EXPECT_LT(deepep[k_ep_bytes] / alltoall[k_ep_bytes], ratio);
  EXPECT_GT(deepep[k_ep_bytes] / alltoall[k_ep_bytes], 0.99 * ratio);
}

TEST(MoeDispatcher, StatedLoadFactorSetsTheBusiestRanksBytesWithinCapacity) {
  // model.router_balance: the busiest expert-parallel rank receives that multiple of the
  // balanced share (its expert GEMMs run it, busiest_expert_rank_load), at most the capacity.
  const auto token_bytes = [](const Scenario& s) {
    const StepCosts c = costs_of(s);
    return ep_collectives(c.stages[0].chunks[0].forward, CollectiveOp::all_to_all).front().second;
  };
  const double forced = token_bytes(scenario(k_qwen, {{"model.router_balance", "forced"}}));
  EXPECT_DOUBLE_EQ(forced, token_bytes(scenario(k_qwen)));
  EXPECT_DOUBLE_EQ(token_bytes(scenario(k_qwen, {{"model.router_balance", "1.25"}})), 1.25 * forced);
  EXPECT_DOUBLE_EQ(token_bytes(scenario(k_qwen, {{"model.router_balance", "1.25"}, {"model.capacity_factor", "1.1"}})),
                   1.1 * forced);
  // The GPU's time, with the host free: at the x86 host's measured costs this small layer's
  // forward runs at the host's pace after its sync (the router's and dispatcher's calls,
  // models/moe_kernel_counts.hpp), which a busier expert rank does not change.
  const Settings free_host{{"training.kernel_host_time", "0us"}};
  const StepCosts a = costs_of(scenario(k_qwen, free_host));
  const StepCosts b =
      costs_of(scenario(k_qwen, {{"model.router_balance", "1.25"}, {"training.kernel_host_time", "0us"}}));
  EXPECT_GT(b.stages[0].chunks[0].forward.compute_s, a.stages[0].chunks[0].forward.compute_s);
}

TEST(MoeDispatcher, AcrossNodesDeepEpSendsRemotePeersTheirNodesShare) {
  // EP 16 over two DGX H100 nodes (Megatron-Core's order: 8 ranks a node): each GPU sends its
  // 7 local peers a token's rows once per rank and its 8 remote peers once per node.
  const Settings two_nodes{{"cluster.nodes", "2"}, {"parallel.ep", "16"}, {"parallel.order", "tp-cp-dp-pp"}};
  Settings with_deepep = two_nodes;
  with_deepep.push_back({"parallel.moe_dispatcher", "deepep"});
  const Scenario s = scenario(k_qwen, with_deepep);
  const std::vector<double> deepep = testing::step_outputs(s, {});
  const std::vector<double> plain = testing::step_outputs(scenario(k_qwen, two_nodes), {});
  constexpr size_t k_step = 0, k_ep_bytes = 20;
  const double share = remote_peer_share(s.model, s.parallel, 8);
  EXPECT_LT(share, 0.9);
  // The token all-to-alls' bus bytes: 2 a layer and pass, 2 passes, 2 layers, 2 micro-batches,
  // each the nominal (n - 1)/n of its rows times (7 + 8 share) / 15 sent.
  const double nominal = 4096 * expected_destination_ranks(128, 8, 16) * 2048 * 2.0 * 15 / 16;
  ASSERT_GT(deepep[k_step], 0);
  EXPECT_NEAR(deepep[k_ep_bytes] / (16 * nominal * (7 + 8 * share) / 15), 1.0, 1e-9);
  EXPECT_LT(deepep[k_step], plain[k_step]);
}

}  // namespace
}  // namespace trainsim
