// What a stage actor's parts share (sim/step/stage_context.hpp): a pass's work rate, bus
// bytes, the rendezvous keys of a step's gradient-group collectives, and the reports to the
// step's observer.

#include <gtest/gtest.h>

#include <vector>

#include "sim/step/stage_context.hpp"
#include "tests/step/stage_part_world.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using engine::CollectiveOp;
using testing::run_stage_part;
using testing::scenario;

TEST(StageContext, WorkRateIsAPassesWorkOverItsCompute) {
  PassCost pass;
  pass.compute_s = 0.5;
  pass.executed_flops = 1e12;
  pass.executed_bytes = 4e9;
  const WorkRate r = work_rate(pass);
  EXPECT_DOUBLE_EQ(r.flops_per_s, 2e12);
  EXPECT_DOUBLE_EQ(r.bytes_per_s, 8e9);
  pass.compute_s = 0;  // no compute, no rate
  EXPECT_EQ(work_rate(pass).flops_per_s, 0.0);
}

TEST(StageContext, BusBytesAreNoneOnOneRank) {
  EXPECT_EQ(bus_bytes(CollectiveOp::all_reduce, 1e6, 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_bytes(CollectiveOp::all_reduce, 1e6, 4), 1.5e6);
  EXPECT_DOUBLE_EQ(bus_bytes(CollectiveOp::all_gather, 1e6, 4), 0.75e6);
}

TEST(StageContext, KeysAndReportsNameTheStageAndStep) {
  testing::KeptRecords records;
  StepOptions options;
  options.observer = &records;
  const Scenario s = scenario({{"model.preset", "llama3-8b"},
                               {"model.layers", "4"},
                               {"model.seq_len", "2048"},
                               {"parallel.tp", "4"},
                               {"parallel.pp", "2"},
                               {"training.grad_accum", "2"},
                               {"cluster.nodes", "1"}});
  const std::vector<double> out = run_stage_part(
      s, 1,
      [&](StageContext& c) {
        c.step = 3;
        const ReplicaRendezvous::Key first = c.next_rendezvous();
        const ReplicaRendezvous::Key second = c.next_rendezvous();
        const PipelineTask t{1, 0, TaskPass::backward};
        c.observe(ActivityStream::compute, "backward", &t, 0.0, 1e-3, 0, 5.0);
        c.observe(ActivityStream::compute, "rounding", &t, 1e-3, 1e-3 + 1e-13, 0, 0);  // under a picosecond
        const ActivityRecord& r = records.records.front();
        return std::vector<double>{first.tie() == ReplicaRendezvous::Key{-1, 1, 3, 0}.tie() ? 1.0 : 0.0,
                                   second.tie() == ReplicaRendezvous::Key{-1, 1, 3, 1}.tie() ? 1.0 : 0.0,
                                   static_cast<double>(records.records.size()),
                                   static_cast<double>(r.stage),
                                   static_cast<double>(r.step),
                                   static_cast<double>(r.microbatch),
                                   static_cast<double>(r.rank == c.rank),
                                   r.flops};
      },
      options);
  EXPECT_EQ(out, (std::vector<double>{1, 1, 1, 1, 3, 1, 1, 5.0}));
}

}  // namespace
}  // namespace trainsim
