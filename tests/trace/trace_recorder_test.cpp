// The trace recorder: what it keeps, and how it aggregates beyond its cap. No simulation:
// the records are made by hand, as the step simulation would report them.

#include "sim/trace/trace_recorder.hpp"

#include <gtest/gtest.h>

namespace trainsim {
namespace {

ActivityRecord record(int rank, ActivityStream stream, const std::string& kind, double start_s, double end_s,
                      int microbatch) {
  ActivityRecord r;
  r.rank = rank;
  r.stage = rank / 2;
  r.stream = stream;
  r.kind = kind;
  r.chunk = 0;
  r.microbatch = microbatch;
  r.start_s = start_s;
  r.end_s = end_s;
  r.bytes = stream == ActivityStream::compute ? 0 : 100;
  r.flops = stream == ActivityStream::compute ? 1e9 : 0;
  return r;
}

TEST(TraceRecorder, KeepsEveryActivityUnderTheCap) {
  TraceRecorder recorder(true, 10);
  recorder.on_activity(record(2, ActivityStream::compute, "forward", 1.0, 2.0, 1));
  recorder.on_activity(record(0, ActivityStream::tp_comm, "tp_allreduce", 0.5, 0.7, 0));
  recorder.on_step(0, 0.0, 3.0);
  const std::vector<TraceEvent> events = recorder.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, "tp_allreduce");  // ordered by start time
  EXPECT_EQ(events[0].stream, "tp_comm");
  EXPECT_EQ(events[1].layer, 0);
  EXPECT_EQ(events[1].microbatch, 1);
  EXPECT_EQ(events[1].stage, 1);
  EXPECT_EQ(events[1].count, 1);
  EXPECT_EQ(recorder.observed(), 2);
  ASSERT_EQ(recorder.steps().size(), 1u);
  EXPECT_DOUBLE_EQ(recorder.steps()[0].end_s, 3.0);
  EXPECT_EQ(recorder.rule().rfind("all:", 0), 0u);
}

TEST(TraceRecorder, AggregatesPerRankStreamAndKindBeyondTheCap) {
  TraceRecorder recorder(true, 2);
  for (int mb = 0; mb < 6; ++mb) recorder.on_activity(record(0, ActivityStream::compute, "forward", mb, mb + 0.5, mb));
  recorder.on_activity(record(0, ActivityStream::pp_comm, "pp_send", 10, 11, 0));
  const std::vector<TraceEvent> events = recorder.events();
  // Two kept, then one aggregate of forwards 2..5 and one of the send.
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[2].count, 4);
  EXPECT_DOUBLE_EQ(events[2].start_s, 2.0);
  EXPECT_DOUBLE_EQ(events[2].end_s, 5.5);
  EXPECT_DOUBLE_EQ(events[2].flops, 4e9);
  EXPECT_EQ(events[2].microbatch, -1);
  EXPECT_EQ(events[2].layer, -1);
  EXPECT_EQ(events[3].count, 1);
  EXPECT_EQ(events[3].kind, "pp_send");
  EXPECT_EQ(recorder.observed(), 7);
  EXPECT_EQ(recorder.rule().rfind("aggregated:", 0), 0u);
}

TEST(TraceRecorder, RecordsOnlyStepsWhenEventsAreNotKept) {
  TraceRecorder recorder(false, 10);
  recorder.on_activity(record(0, ActivityStream::compute, "forward", 0, 1, 0));
  recorder.on_step(0, 0, 1);
  EXPECT_TRUE(recorder.events().empty());
  EXPECT_EQ(recorder.observed(), 1);
  EXPECT_EQ(recorder.steps().size(), 1u);
}

}  // namespace
}  // namespace trainsim
