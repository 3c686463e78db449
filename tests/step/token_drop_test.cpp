// Token dropping in the step (models/expert_capacity.hpp): padded to capacity, a layer's
// expert GEMMs and token all-to-alls run the padded rows, the counts' all-gather and the host
// sync go, and the dropped pairs leave the model FLOPs but not the hardware FLOPs; without
// padding the sync stays and the experts run the surviving rows.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "models/expert_capacity.hpp"
#include "models/layer_workload.hpp"
#include "sim/compute/roofline_compute_model.hpp"
#include "sim/step/host_bound_pass.hpp"
#include "sim/step/stage_costs.hpp"
#include "tests/step/moe_step_costs.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using engine::CollectiveOp;
using testing::scenario;
using testing::Settings;

// Qwen3 30B-A3B, 2 layers of 4,096 tokens, EP 8 on one DGX H100: capacity at factor 1.25 is
// ceil(4096 x 8 / 128 x 1.25) = 320 rows an expert, exactly 1.25 x the balanced 256.
const Settings& k_qwen = testing::k_small_qwen3;

Settings with(Settings extra) {
  return testing::merged(k_qwen, extra);
}

StepCosts costs_of(const Scenario& s) {
  return testing::roofline_costs(s);
}

using testing::ep_collectives;

TEST(TokenDrop, PaddedAllToAllsCarryThePaddedRowsAndNoCountsAreGathered) {
  using Calls = std::vector<std::pair<int, double>>;
  const ChunkCosts dropless = costs_of(scenario(k_qwen)).stages[0].chunks[0];
  const ChunkCosts padded =
      costs_of(scenario(with({{"model.capacity_factor", "1.25"}, {"model.pad_to_capacity", "true"}}))).stages[0].chunks[0];
  const double rows = 4096.0 * 8, token_bytes = rows * 2048 * 2.0;
  EXPECT_EQ(ep_collectives(dropless.forward, CollectiveOp::all_gather), (Calls{{2, 8 * 128 * 8.0}}));
  EXPECT_TRUE(ep_collectives(padded.forward, CollectiveOp::all_gather).empty());
  for (const PassCost* pass : {&padded.forward, &padded.backward})
    EXPECT_EQ(ep_collectives(*pass, CollectiveOp::all_to_all), (Calls{{4, 1.25 * token_bytes}, {2, 1.25 * rows * 4.0}}));
  // Unpadded, the factor only caps: forced routing stays under it, the counts are gathered.
  const ChunkCosts capped = costs_of(scenario(with({{"model.capacity_factor", "1.25"}}))).stages[0].chunks[0];
  EXPECT_EQ(ep_collectives(capped.forward, CollectiveOp::all_to_all),
            ep_collectives(dropless.forward, CollectiveOp::all_to_all));
  EXPECT_EQ(ep_collectives(capped.forward, CollectiveOp::all_gather).size(), 1U);
}

// The expert GEMMs run the padded rows: hardware FLOPs grow by the padding, model FLOPs not.
TEST(TokenDrop, PaddingCountsInHardwareFlopsNotModelFlops) {
  const PassCost dropless = costs_of(scenario(k_qwen)).stages[0].chunks[0].forward;
  const Scenario s = scenario(with({{"model.capacity_factor", "1.25"}, {"model.pad_to_capacity", "true"}}));
  const PassCost padded = costs_of(s).stages[0].chunks[0].forward;
  double expert_flops = 0;
  for (const Op& op : transformer_layer_ops(s.model, s.training, s.parallel).forward)
    if (op.name.rfind("experts.", 0) == 0) expert_flops += op.flops;
  ASSERT_GT(expert_flops, 0);
  EXPECT_DOUBLE_EQ(padded.model_flops, dropless.model_flops);
  EXPECT_NEAR(padded.executed_flops - dropless.executed_flops, 2 * 0.25 * expert_flops, 1e-6 * expert_flops);
  // The padded rows take time against the same static path without padding (factor 1.0). Against
  // the dropless layer padding can come out faster: its reshape of fixed chunks streams where the
  // dropless chunk sort moves rows through a map (sim/compute/row_gather.hpp).
  const PassCost exact =
      costs_of(scenario(with({{"model.capacity_factor", "1.0"}, {"model.pad_to_capacity", "true"}}))).stages[0].chunks[0].forward;
  EXPECT_GT(padded.compute_s, exact.compute_s);
}

// A factor of 0.5 drops half of every expert's pairs (balanced routing): padded or not, the
// experts run half the rows and the model FLOPs lose half of the experts'.
TEST(TokenDrop, DroppedPairsLeaveModelAndHardwareFlops) {
  const Scenario s = scenario(k_qwen);
  double expert_model = 0, expert_flops = 0;
  for (const Op& op : transformer_layer_ops(s.model, s.training, s.parallel).forward)
    if (op.name.rfind("experts.", 0) == 0) {
      expert_model += op.model_flops;
      expert_flops += op.flops;
    }
  const PassCost dropless = costs_of(s).stages[0].chunks[0].forward;
  for (const char* pad : {"false", "true"}) {
    const PassCost half =
        costs_of(scenario(with({{"model.capacity_factor", "0.5"}, {"model.pad_to_capacity", pad}}))).stages[0].chunks[0].forward;
    EXPECT_NEAR(dropless.model_flops - half.model_flops, 2 * 0.5 * expert_model, 1e-6 * expert_model) << pad;
    EXPECT_NEAR(dropless.executed_flops - half.executed_flops, 2 * 0.5 * expert_flops, 1e-6 * expert_flops) << pad;
  }
}

// The dispatch's host sync: dropless and unpadded dropping wait on the host once a layer's
// forward; padded, no segment of the pass starts after a sync.
TEST(TokenDrop, PaddingRemovesTheHostSync) {
  const auto synced_segments = [](const Scenario& s) {
    const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
    const PassOps ops = transformer_layer_ops(s.model, s.training, s.parallel);
    const HostLaunchCost host = host_launch_cost(s.training, s.cluster.host);
    int synced = 0;
    for (const HostSegment& seg : host_segments(ops.forward, compute, 1.0, host)) synced += seg.after_sync ? 1 : 0;
    return synced;
  };
  EXPECT_EQ(synced_segments(scenario(k_qwen)), 1);
  EXPECT_EQ(synced_segments(scenario(with({{"model.capacity_factor", "1.0"}}))), 1);
  EXPECT_EQ(synced_segments(scenario(with({{"model.capacity_factor", "1.0"}, {"model.pad_to_capacity", "true"}}))), 0);
}

// Simulated: at factor 1.0 the padded rows equal the balanced ones, so what is left of the
// difference is the sync, the counts' all-gather and the reshape: the padded step is faster
// on a host that takes time to launch.
TEST(TokenDrop, PaddedStepIsFasterWhereTheHostSetsThePace) {
  const Settings slow_host{{"training.kernel_host_time", "40us"}};
  const std::vector<double> dropless = testing::step_outputs(scenario(with(slow_host)), {});
  Settings padded = slow_host;
  padded.push_back({"model.capacity_factor", "1.0"});
  padded.push_back({"model.pad_to_capacity", "true"});
  const std::vector<double> drop = testing::step_outputs(scenario(with(padded)), {});
  EXPECT_LT(drop[0], dropless[0]);
}

// Full-iteration graphs are legal on a padded MoE layer (sim/scenario/token_drop_fields.hpp)
// and priced with no sync inside: the layer's forward is one stretch the host launches with one
// dispatch.
TEST(TokenDrop, FullIterationGraphOfAPaddedLayerHasNoSyncInside) {
  const Scenario s = scenario(with({{"model.capacity_factor", "1.0"},
                                    {"model.pad_to_capacity", "true"},
                                    {"training.cuda_graphs", "full_iteration"}}));
  const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
  const PassOps ops = transformer_layer_ops(s.model, s.training, s.parallel);
  const HostLaunchCost host = host_launch_cost(s.training, s.cluster.host);
  const std::vector<HostSegment> segments = host_segments(ops.forward, compute, 1.0, host);
  ASSERT_EQ(segments.size(), 1U);
  EXPECT_FALSE(segments[0].after_sync);
  EXPECT_DOUBLE_EQ(segments[0].host_s, host.op_s);
  EXPECT_DOUBLE_EQ(segments[0].time_s, std::max(segments[0].gpu_s, host.op_s));
}

}  // namespace
}  // namespace trainsim
