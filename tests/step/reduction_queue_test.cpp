// A stage's gradient reductions queue one behind the other, in the order they were issued, as
// NCCL runs the collectives issued to one communicator (Megatron-LM's bucket reductions on the
// data-parallel group: GradientReduction::start).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/compute/roofline_compute_model.hpp"
#include "sim/step/step_simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;

// Llama 3 8B cut to 8 layers on 4 nodes: TP 4 x PP 2 x DP 4, the gradients reduced during the
// last backward in buckets of 16 MiB (the most a chunk runs: 4 buckets).
const testing::Settings k_bucketed{{"model.preset", "llama3-8b"},     {"model.layers", "8"},
                                   {"model.seq_len", "2048"},         {"training.grad_accum", "2"},
                                   {"training.dp_bucket", "16 MiB"},  {"parallel.tp", "4"},
                                   {"parallel.pp", "2"},              {"parallel.overlap_grad_reduce", "true"},
                                   {"cluster.nodes", "4"},            {"cluster.fabric", "rail-optimized"}};

// Stage 0's reductions in step 0, as replica 0 reports them: [start, end] pairs in issue order.
class StageZeroReductions final : public StepObserver {
 public:
  void on_activity(const ActivityRecord& r) override {
    if (r.stream == ActivityStream::dp_comm && r.kind == "dp_reduce" && r.stage == 0 && r.replica == 0 &&
        r.step == 0)
      spans.insert(spans.end(), {r.start_s, r.end_s});
  }
  void on_step(int, double, double) override {}
  std::vector<double> spans;
};

std::vector<double> reductions(const Scenario& s, bool reduce_symmetry) {
  return engine::test::run_isolated([&] {
    const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
    StageZeroReductions observer;
    StepOptions options;
    options.observer = &observer;
    options.reduce_symmetry = reduce_symmetry;
    simulate_step(s, compute, options);
    return observer.spans;
  });
}

TEST(ReductionQueue, AStagesBucketsRunOneAfterAnother) {
  const Scenario s = scenario(k_bucketed);
  for (const bool reduced : {true, false}) {
    const std::vector<double> spans = reductions(s, reduced);
    ASSERT_GE(spans.size(), 4u) << "reduced " << reduced;  // at least two reductions
    int queued = 0;
    for (size_t i = 2; i < spans.size(); i += 2) {
      EXPECT_GE(spans[i], spans[i - 1]) << "reduction " << i / 2 << " began before the one before it ended";
      queued += spans[i] == spans[i - 1] ? 1 : 0;
    }
    // The backward issues a bucket faster than the fabric reduces one: some wait their turn
    // and begin the instant the one before ends.
    EXPECT_GT(queued, 0) << "reduced " << reduced;
  }
}

}  // namespace
}  // namespace trainsim
