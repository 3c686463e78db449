#include <gtest/gtest.h>

#include "sim/run/data_cursor.hpp"

namespace trainsim {
namespace {

TEST(DataCursor, SavedCursorKeepsTheFailureFreeSequence) {
  DataCursor c(100, 1.0, true);
  c.trained_to(10);      // checkpoint at 10 ...
  c.restarted_from(10);  // ... a failure at step 13 rolls back to it
  c.trained_to(25);
  c.restarted_from(20);  // a checkpoint at 20, a failure after it
  c.trained_to(30);
  ASSERT_EQ(c.ranges().size(), 1u);
  EXPECT_EQ(c.ranges()[0], std::make_pair(0.0, 3000.0));  // as if nothing had failed
  EXPECT_EQ(c.duplicated(), 0);
  EXPECT_EQ(c.skipped(), 0);
}

TEST(DataCursor, WithoutTheCursorARestartReadsFromTheStart) {
  DataCursor c(100, 1.0, false);
  c.trained_to(10);
  c.restarted_from(10);  // the loader starts over: steps 10.. see samples 0.. again
  c.trained_to(15);
  EXPECT_EQ(c.duplicated(), 500);
  EXPECT_EQ(c.skipped(), 0);
}

TEST(DataCursor, RollingBackDropsTheDiscardedSteps) {
  DataCursor c(10, 1.0, false);
  c.trained_to(5);
  c.restarted_from(5);
  c.trained_to(8);      // samples 0..30 again
  c.restarted_from(6);  // back to step 6: the second life keeps 1 step (samples 0..10)
  c.trained_to(7);      // the loader starts over again: samples 0..10
  EXPECT_EQ(c.duplicated(), 20);
}

}  // namespace
}  // namespace trainsim
