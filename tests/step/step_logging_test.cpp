// The step's metrics logged by NeMo 2's Lightning strategy and read on the host at the end of
// every step (training.loss_host_sync, sim/step/step_logging.hpp): the calls counted from
// NeMo's, Lightning's and MLPerf's code, charged in the loss sync's and the norm sync's
// windows, and the read's wait for the optimizer's kernels, after which the next step's
// dispatches run with the GPU idle.

#include <gtest/gtest.h>

#include "sim/step/fixed_costs.hpp"
#include "sim/step/host_bound_pass.hpp"
#include "sim/step/step_logging.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;

const testing::Settings k_nemo =
    testing::merged(testing::small_gb200_llama3_8b(), {{"training.loss_host_sync", "true"}});

TEST(StepLogging, CountsTheLoggedValuesCallsInEachWindow) {
  const Scenario s = scenario(k_nemo);
  // Before the norm: the step as a pinned tensor and its copy, "global_step" and "step" each
  // cast to float32 and cloned, the loss cloned.
  EXPECT_EQ(logging_ops_before_norm(s), 2 + 2 * 2 + 1);
  // After it: the norm as a pinned tensor, its copy and clone; the step time's tensor and
  // clone; the logger's first read.
  EXPECT_EQ(logging_ops_before_read(s), 3 + 2 + 1);
  // The other four of the five values' reads.
  EXPECT_EQ(logging_ops_after_read(s), 4);
  // Megatron-LM's and Megatron-Bridge's loops (the key off), or the optimizer on the host: none.
  for (const Scenario& off : {scenario(testing::small_gb200_llama3_8b()),
                              scenario(k_nemo, {{"training.offload", "cpu"}, {"parallel.zero", "0"},
                                                {"parallel.overlap_param_gather", "false"}})}) {
    EXPECT_FALSE(reads_step_metrics(off));
    EXPECT_EQ(logging_ops_before_norm(off) + logging_ops_before_read(off) + logging_ops_after_read(off), 0);
  }
}

TEST(StepLogging, TheReadExposesTheNextStepsDispatchesBehindLongOptimizerKernels) {
  const Scenario on = scenario(k_nemo);
  const Scenario off = scenario(testing::small_gb200_llama3_8b());
  const HostLaunchCost host = host_launch_cost(on.training, on.cluster.host);
  // Optimizer kernels longer than every dispatch after the norm: without the read they hide
  // all of it; with it the ops after the read (the buffer reset and the next step's first op,
  // no full-iteration graph here) and the other four reads still run with the GPU idle.
  constexpr double k_long_optimizer_s = 1.0;
  EXPECT_EQ(host_after_norm_s(off, 4, 1e9, k_long_optimizer_s), 0.0);
  EXPECT_EQ(host_ops_after_step_read(on), 1 + 1);
  EXPECT_DOUBLE_EQ(host_after_norm_s(on, 4, 1e9, k_long_optimizer_s), (2 + 4) * host.op_s);
  // No optimizer kernels to hide behind: every op and call is charged, the logging's included.
  const int ops = host_ops_after_norm(on, 4, gradient_buckets(on, 1e9));
  EXPECT_DOUBLE_EQ(host_after_norm_s(on, 4, 1e9, 0.0), (ops + 6 + 4) * host.op_s);
  EXPECT_DOUBLE_EQ(host_after_norm_s(off, 4, 1e9, 0.0), ops * host.op_s);
}

TEST(StepLogging, AFullIterationGraphsBatchCopiesComeAfterTheRead) {
  const Scenario graphed = scenario(k_nemo, {{"training.cuda_graphs", "full_iteration"}});
  // The four batch tensors copied into the graph's static buffers before its replay.
  EXPECT_EQ(host_ops_after_step_read(graphed), 1 + 4 + 1);
}

}  // namespace
}  // namespace trainsim
