// The loss read on the host before the optimizer step (training.loss_host_sync,
// sim/step/loss_host_sync.hpp): NeMo 2's loss reduction syncs the host with the GPU after the
// forward-backward, and the GPU waits for the host's dispatches up to the gradient norm's
// all-reduce, counted op by op from NeMo's and Megatron-Core's code and priced at the host's
// cost per op; reported as host_before_norm, of optimizer.

#include <gtest/gtest.h>

#include <vector>

#include "sim/core/error.hpp"
#include "sim/step/fixed_costs.hpp"
#include "sim/step/host_bound_pass.hpp"
#include "sim/step/loss_host_sync.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;

// Llama 3 8B cut to 4 layers, TP 2, DP 4, the distributed optimizer, on GB200 (Grace hosts).
const testing::Settings k_nemo =
    testing::merged(testing::small_gb200_llama3_8b(), {{"training.loss_host_sync", "true"}});

TEST(LossHostSync, CountsTheLossReductionTheShardsCastsAndTheNormsOps) {
  const Scenario s = scenario(k_nemo);
  // Per micro-batch a comparison and its read; vstack, sum, the all-reduce's call, the
  // division; a .float() per shard gradient tensor (27 tensors of 4 layers over 4 shards: 7,
  // and the one the shard starts inside); zeros, the L2 norm, its square, the all-reduce's call.
  EXPECT_EQ(host_ops_before_norm(s, 4, 1), 2 + 4 + 8 + 4);
  EXPECT_EQ(host_ops_before_norm(s, 4, 3), 3 * 2 + 4 + 8 + 4);
  // Without the distributed optimizer every gradient tensor is cast.
  EXPECT_EQ(host_ops_before_norm(scenario(k_nemo, {{"parallel.zero", "0"}, {"parallel.overlap_param_gather", "false"}}),
                                 4, 1),
            2 + 4 + 27 + 4);
}

TEST(LossHostSync, PricesTheOpsAndTheTwoCollectiveCallsAtTheHostsCosts) {
  const Scenario s = scenario(k_nemo);
  const HostLaunchCost host = host_launch_cost(s.training, s.cluster.host);
  // The 18 ops above and the 7 calls of the step's metrics logged in this window
  // (step_logging.hpp: the step as a GPU tensor, two casts and three clones).
  EXPECT_DOUBLE_EQ(host_before_norm_s(s, 4), (18 + 7) * host.op_s + 2 * host.collective_s);
  // Off (Megatron-LM's and Megatron-Bridge's loops), or with the optimizer on the host: nothing.
  EXPECT_EQ(host_before_norm_s(scenario(testing::small_gb200_llama3_8b()), 4), 0.0);
  // An x86 host's per-op cost: less of a wait than Grace's (topologies/host_cost.hpp).
  EXPECT_LT(host_before_norm_s(scenario(k_nemo, {{"training.kernel_host_time", "30us"}}), 4), host_before_norm_s(s, 4));
}

TEST(LossHostSync, IsABooleanKey) {
  EXPECT_THROW(scenario(k_nemo, {{"training.loss_host_sync", "sometimes"}}), InputError);
}

// Per GPU: the step, optimizer and the two parts.
std::vector<double> fields(const StepResult& r) {
  return {r.step_time_s, r.breakdown_s.optimizer, r.fixed_costs_s.host_before_norm, r.fixed_costs_s.host_after_norm};
}

TEST(LossHostSync, TheGpuWaitsTheHostsTimeAsAPartOfOptimizer) {
  const Scenario on = scenario(k_nemo);
  const std::vector<double> with = testing::simulated_fields(on, true, fields);
  const std::vector<double> without =
      testing::simulated_fields(scenario(testing::small_gb200_llama3_8b()), true, fields);
  const double wait = host_before_norm_s(on, 4);
  ASSERT_GT(wait, 0.0);
  EXPECT_NEAR(with[2], wait, 1e-9);
  EXPECT_EQ(without[2], 0.0);
  // Nothing runs beside it: the step and optimizer grow by exactly the wait and the step-end
  // read's exposure of the ops after the norm (step_logging.hpp).
  const double after = with[3] - without[3];
  EXPECT_GT(after, 0.0);
  EXPECT_NEAR(with[0] - without[0], wait + after, 1e-9);
  EXPECT_NEAR(with[1] - without[1], wait + after, 1e-9);
  // Symmetry (DESIGN.md): the reduced step equals --full.
  const std::vector<double> full = testing::simulated_fields(on, false, fields);
  for (size_t i = 0; i < with.size(); ++i) EXPECT_NEAR(with[i], full[i], 1e-6 * with[0]) << "field " << i;
}

}  // namespace
}  // namespace trainsim
