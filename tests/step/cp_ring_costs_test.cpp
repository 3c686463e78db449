// Ring context parallelism in the step's costs (models/cp_ring_attention.hpp): the K/V exchange
// runs beside the pieces Transformer Engine runs while it is in flight, and the backward's
// ring carries dK/dV beside K/V.

#include <gtest/gtest.h>

#include "models/layer_workload.hpp"
#include "sim/compute/roofline_compute_model.hpp"
#include "sim/step/stage_costs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::merged;
using testing::scenario;

TEST(CpRingCosts, TheExchangeHidesBehindTheStepsThatRunBesideIt) {
  const Scenario s = scenario(merged(testing::small_gb200_llama3_8b(), {{"parallel.cp", "4"}}));
  const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
  const StepCosts costs = build_step_costs(s, compute, false);
  const ChunkCosts& c = costs.stages[0].chunks[0];
  const PassOps layer = transformer_layer_ops(s.model, s.training, s.parallel);
  for (auto [pass, ops] : {std::pair{&c.forward, &layer.forward}, {&c.backward, &layer.backward}}) {
    double hidden = 0, after = 0;
    for (const Op& op : *ops) {
      if (op.beside_cp_exchange)
        hidden += compute.time_s(op);
      else if (is_attention_core(op))
        after += compute.time_s(op);
    }
    EXPECT_GT(after, 0);  // the forward's last step and output merge, the backward's dK/dV sums
    EXPECT_NEAR(pass->cp_hidden_s / (c.layers * hidden), 1.0, 1e-12);
    EXPECT_NEAR((pass->attention_s - pass->cp_hidden_s) / (c.layers * after), 1.0, 1e-12);
  }
  EXPECT_NEAR(c.backward.cp_gather_bytes / c.forward.cp_gather_bytes, 2.0, 1e-12);
}

TEST(CpRingCosts, AllGatherKeepsItsExchangeBytes) {
  const Scenario s =
      scenario(merged(testing::small_gb200_llama3_8b(), {{"parallel.cp", "4"}, {"parallel.cp_algo", "all-gather"}}));
  const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
  const ChunkCosts& c = build_step_costs(s, compute, false).stages[0].chunks[0];
  EXPECT_EQ(c.backward.cp_gather_bytes, c.forward.cp_gather_bytes);
  EXPECT_EQ(c.forward.cp_hidden_s, 0);
}

}  // namespace
}  // namespace trainsim
