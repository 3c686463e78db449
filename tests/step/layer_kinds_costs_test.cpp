// The step's costs of models whose layers differ (issue 16): each pipeline chunk charges its
// own layers, dense or MoE, windowed or full attention, not one layer's workload repeated.

#include <gtest/gtest.h>

#include "models/layer_kinds.hpp"
#include "models/layer_workload.hpp"
#include "sim/compute/roofline_compute_model.hpp"
#include "sim/step/stage_costs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

StepCosts costs_of(const Scenario& s) {
  const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
  return build_step_costs(s, compute, false);
}

int all_to_alls(const PassCost& pass) {
  int n = 0;
  for (const GroupCollective& c : pass.collectives)
    if (c.group == CommGroup::ep) n += c.count;
  return n;
}

double forward_flops(const ModelSpec& m, const Scenario& s, int layer) {
  return total_flops(transformer_layer_ops(layer_spec(m, layer), s.training, s.parallel).forward);
}

// DeepSeek-V3's layer shapes, 8 layers of which the first 3 dense, over two pipeline stages.
const Settings k_deepseek{{"model.preset", "deepseek-v3"},
                          {"model.layers", "8"},
                          {"model.mtp_depth", "0"},
                          {"parallel.pp", "2"},
                          {"parallel.ep", "8"},
                          {"parallel.stage_split", "even"},
                          {"cluster.nodes", "2"}};

TEST(LayerKindsCosts, DenseLayersHaveNoAllToAll) {
  const Scenario s = scenario(k_deepseek);
  const StepCosts c = costs_of(s);
  ASSERT_EQ(c.stages.size(), 2U);
  // Stage 0: layers 0-3, one of them MoE; stage 1: layers 4-7, all MoE (each forward: the
  // token counts' all-gather, the tokens' two all-to-alls and the probabilities' one).
  EXPECT_EQ(all_to_alls(c.stages[0].chunks[0].forward), 4);
  EXPECT_EQ(all_to_alls(c.stages[1].chunks[0].forward), 16);
  const double stage0 = 3 * forward_flops(s.model, s, 0) + forward_flops(s.model, s, 3);
  EXPECT_NEAR(c.stages[0].chunks[0].forward.model_flops / stage0, 1.0, 1e-12);
  EXPECT_GT(c.stages[1].expert_gradient_bytes, c.stages[0].expert_gradient_bytes);
}

TEST(LayerKindsCosts, MtpRunsOnTheLastStage) {
  const Scenario plain = scenario(k_deepseek);
  const Scenario mtp = scenario(k_deepseek, {{"model.mtp_depth", "1"}});
  const StepCosts a = costs_of(plain), b = costs_of(mtp);
  EXPECT_EQ(a.stages[0].chunks[0].forward.model_flops, b.stages[0].chunks[0].forward.model_flops);
  // One more MoE layer, the 2h -> h projection and one more output head.
  const double extra = forward_flops(mtp.model, mtp, 7) +
                       total_flops(mtp_projection_ops(mtp.model, mtp.training, mtp.parallel).forward) +
                       total_flops(output_ops(mtp.model, mtp.training, mtp.parallel).forward);
  EXPECT_NEAR((b.stages[1].chunks[0].forward.model_flops - a.stages[1].chunks[0].forward.model_flops) / extra, 1.0,
              1e-9);
  EXPECT_GT(b.stages[1].dense_gradient_bytes, a.stages[1].dense_gradient_bytes);
}

TEST(LayerKindsCosts, WindowedAndFullLayersEachChargeTheirAttention) {
  const Scenario s =
      scenario({{"model.preset", "gpt-oss-120b"}, {"model.layers", "4"}, {"parallel.ep", "8"}, {"cluster.nodes", "1"}});
  const StepCosts c = costs_of(s);
  const double expected = 2 * forward_flops(s.model, s, 0) + 2 * forward_flops(s.model, s, 1) +
                          total_flops(output_ops(s.model, s.training, s.parallel).forward);
  EXPECT_LT(forward_flops(s.model, s, 0), forward_flops(s.model, s, 1));  // the window's attention is smaller
  EXPECT_NEAR(c.stages[0].chunks[0].forward.model_flops / expected, 1.0, 1e-12);
}

TEST(LayerKindsCosts, ParallelBlockHalvesTheTensorParallelAllReduces) {
  const Settings base{
      {"model.preset", "llama3-8b"}, {"model.layers", "4"}, {"parallel.tp", "8"}, {"cluster.nodes", "1"}};
  const auto count = [](const Scenario& s) {
    int n = 0;
    const StepCosts c = costs_of(s);
    for (const GroupCollective& g : c.stages[0].chunks[0].forward.collectives)
      if (g.group == CommGroup::tp && g.layers > 0) n += g.count;
    return n;
  };
  EXPECT_EQ(count(scenario(base)), 8);
  EXPECT_EQ(count(scenario(base, {{"model.parallel_block", "true"}})), 4);
}

}  // namespace
}  // namespace trainsim
