// A stage actor's gradient reduction (sim/step/gradient_reduction.hpp): which passes reduce,
// a backward's buckets each reduced as its share of the pass ends, and the step's end
// waiting for them.

#include <gtest/gtest.h>

#include <vector>

#include "sim/schedule/pipeline_schedule.hpp"
#include "sim/step/gradient_reduction.hpp"
#include "tests/step/stage_part_traffic.hpp"
#include "tests/step/stage_part_world.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::ComputeParts;
using testing::run_stage_part;
using testing::scenario;

// Two nodes of 8 GPUs, TP 8: a data-parallel group of two across the fabric, four
// micro-batches, small buckets so that a backward fills several.
const testing::Settings k_two_nodes{
    {"model.preset", "llama3-8b"}, {"model.layers", "4"},  {"model.seq_len", "2048"},      {"parallel.tp", "8"},
    {"training.grad_accum", "4"},  {"cluster.nodes", "2"}, {"training.dp_bucket", "100MB"}};

TEST(GradientReduction, TheLastMicroBatchReducesOrEveryOneUnderMegatronFsdp) {
  const Scenario s = scenario(k_two_nodes);
  const auto one_f_one_b = make_pipeline_schedule(Schedule::one_f_one_b);
  EXPECT_FALSE(reduces_after(s, *one_f_one_b, 4, PipelineTask{2, 0, TaskPass::backward}));
  EXPECT_TRUE(reduces_after(s, *one_f_one_b, 4, PipelineTask{3, 0, TaskPass::backward}));
  const Scenario fsdp = scenario(k_two_nodes, {{"parallel.fsdp", "megatron"}, {"parallel.zero", "3"}});
  ASSERT_TRUE(fsdp.parallel.megatron_fsdp());
  EXPECT_TRUE(reduces_after(fsdp, *one_f_one_b, 4, PipelineTask{0, 0, TaskPass::backward}));
}

// DualPipe's chunk 0 carries micro-batches 0..m/2-1, its chunk 1 m/2..m-1: each chunk's own
// last one completes its gradients (dualpipe_schedule.hpp).
TEST(GradientReduction, DualPipeReducesAfterEachChunksLastMicroBatch) {
  const Scenario s = scenario(k_two_nodes);
  const auto dualpipe = make_pipeline_schedule(Schedule::dualpipe);
  EXPECT_FALSE(reduces_after(s, *dualpipe, 8, PipelineTask{2, 0, TaskPass::weight}));
  EXPECT_TRUE(reduces_after(s, *dualpipe, 8, PipelineTask{3, 0, TaskPass::weight}));
  EXPECT_FALSE(reduces_after(s, *dualpipe, 8, PipelineTask{6, 1, TaskPass::weight}));
  EXPECT_TRUE(reduces_after(s, *dualpipe, 8, PipelineTask{7, 1, TaskPass::weight}));
}

TEST(GradientReduction, EachBucketIsReducedAsItsShareOfTheBackwardEnds) {
  const std::vector<double> out = run_stage_part(scenario(k_two_nodes), 0, [](StageContext& context) {
    ComputeParts parts(context);
    GradientReduction reduction(context, parts.compute);
    const PipelineTask t{3, 0, TaskPass::backward};
    const double seconds = 0.05;
    const double spent = reduction.compute_with_buckets(t, seconds, 1.0);
    const double asked = static_cast<double>(context.account().dp_reductions);
    const bool in_flight = reduction.first_running() != nullptr;
    const double at_end_of_pass = context.clock.now();
    reduction.finish_step();
    return std::vector<double>{spent,
                               asked,
                               in_flight ? 1.0 : 0.0,
                               at_end_of_pass,
                               context.clock.now(),
                               context.account().dp_comm,
                               context.account().dp_bytes,
                               reduction.first_running() == nullptr ? 1.0 : 0.0,
                               context.costs.dense_gradient_bytes};
  });
  ASSERT_EQ(out.size(), 9u);
  // Several buckets of a chunk's 100 MB, at most k_max_buckets_per_chunk reductions.
  EXPECT_GE(out[1], 2.0);
  EXPECT_LE(out[1], k_max_buckets_per_chunk);
  EXPECT_GE(out[0], 0.05);  // slowed while the earlier buckets' reductions run beside it
  EXPECT_EQ(out[2], 1.0);   // the last bucket's reduction is still running when the pass ends
  EXPECT_GT(out[4], out[3]);
  EXPECT_NEAR(out[5], out[4] - out[3], 1e-12);  // the step's end waits for it: dp_comm
  // An all-reduce over two ranks sends its bytes once: the stage's gradients in all.
  EXPECT_NEAR(out[6], out[8], 1e-6 * out[8]);
  EXPECT_EQ(out[7], 1.0);
}

TEST(GradientReduction, WithoutOverlapTheStageReducesOnceAtTheEnd) {
  const Scenario s = scenario(k_two_nodes, {{"parallel.overlap_grad_reduce", "false"}});
  const std::vector<double> out = run_stage_part(s, 0, [](StageContext& context) {
    ComputeParts parts(context);
    GradientReduction reduction(context, parts.compute);
    const double spent = reduction.compute_with_buckets(PipelineTask{3, 0, TaskPass::backward}, 0.05, 1.0);
    const double asked = static_cast<double>(context.account().dp_reductions);
    reduction.finish_step();
    return std::vector<double>{spent, asked, static_cast<double>(context.account().dp_reductions),
                               context.account().dp_comm};
  });
  ASSERT_EQ(out.size(), 4u);
  EXPECT_DOUBLE_EQ(out[0], 0.05);  // nothing beside it
  EXPECT_EQ(out[1], 0.0);
  EXPECT_EQ(out[2], 1.0);
  EXPECT_GT(out[3], 0.0);
}

}  // namespace
}  // namespace trainsim
