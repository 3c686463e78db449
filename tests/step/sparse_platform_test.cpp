// The step on a platform that builds only the endpoints it can touch
// (engine/endpoint_selection.hpp) against the whole cluster's platform: the same step,
// breakdown and activity records, to the bit, on every fabric and parallel axis that puts
// traffic on the network. Each simulation runs in a forked child (one SimGrid engine per
// process).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/scenario/scenario_loader.hpp"
#include "sim/step/step_simulation.hpp"
#include "tests/step/step_outputs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

// 8 nodes of 8 GPUs: TP 4 inside a node, pipeline and data parallelism across nodes.
const Settings k_base{{"model.preset", "llama3-8b"},      {"model.layers", "8"},
                      {"model.seq_len", "2048"},          {"training.grad_accum", "4"},
                      {"parallel.tp", "4"},               {"parallel.pp", "2"},
                      {"parallel.zero", "1"},             {"parallel.overlap_param_gather", "true"},
                      {"cluster.nodes", "8"},             {"cluster.fabric", "rail-optimized"}};

TEST(SparsePlatform, StepEqualsTheWholeClustersOnEveryLayout) {
  for (const testing::NamedScenario& layout : testing::network_layouts(k_base, 8))
    testing::expect_same_with_and_without(layout.scenario, &StepOptions::sparse_platform, layout.what);
}

// Llama 3 405B's step at 131,072 GPUs (a reduced form of trainsim-bench-step's sizes): with
// the platform built for what the step touches it simulates in seconds, and weak scaling
// keeps the step within 1 % of the 16,384-GPU one (more replicas lengthen only the gradient
// reductions' rings, which the backward hides; either way by under 0.1 % here: the longer
// rings also move when a stage's queued bucket reductions load the NICs its pipeline sends
// share).
TEST(SparsePlatform, LlamaStepOn131072GpusSimulates) {
  const std::string file = std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/examples/llama3-405b-16k-h100.ini";
  StepOptions options;
  const double base = testing::step_outputs(load_scenario(file), options).front();
  const double large = testing::step_outputs(load_scenario(file, {"cluster.nodes=16384"}), options).front();
  EXPECT_NEAR(large / base, 1.0, 0.01);
}

}  // namespace
}  // namespace trainsim
