// The progress line: items done, reused, the caller's note and the time left, redrawn in place.

#include "sim/core/progress_line.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace trainsim {
namespace {

TEST(ProgressLine, CountsAndTimeLeft) {
  std::ostringstream out;
  ProgressLine line(&out, "sweep", "points", 4, 1, ", 0 skipped, 0 failed");
  line.item_done(", 1 skipped, 0 failed");
  line.item_done(", 1 skipped, 1 failed");
  line.finish();
  const std::string text = out.str();
  EXPECT_NE(text.find("\rsweep: 1/4 points done (1 reused), 0 skipped, 0 failed"), std::string::npos) << text;
  EXPECT_NE(text.find("\rsweep: 2/4 points done (1 reused), 1 skipped, 0 failed, about "), std::string::npos) << text;
  EXPECT_NE(text.find("\rsweep: 3/4 points done (1 reused), 1 skipped, 1 failed, about "), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
}

TEST(ProgressLine, WithoutReusedItemsOrNote) {
  std::ostringstream out;
  ProgressLine line(&out, "scale", "sizes", 2);
  line.item_done();
  line.item_done();
  line.finish();
  const std::string text = out.str();
  EXPECT_NE(text.find("\rscale: 0/2 sizes done"), std::string::npos) << text;
  EXPECT_NE(text.find("\rscale: 1/2 sizes done, about "), std::string::npos) << text;
  EXPECT_NE(text.find("\rscale: 2/2 sizes done\033[K"), std::string::npos) << text;  // nothing left: no estimate
}

TEST(ProgressLine, QuietWithoutATerminal) {
  ProgressLine line(nullptr, "sweep", "points", 2);
  line.item_done();
  line.finish();  // nothing to draw on, nothing to crash on
  SUCCEED();
}

// A share of a whole (the run simulation's percent): redrawn only when it moves.
TEST(ProgressLine, AdvanceToRedrawsWhenTheCountMoves) {
  std::ostringstream out;
  ProgressLine line(&out, "run simulation", "%", 100);
  line.advance_to(40);
  line.advance_to(40);
  line.advance_to(30);  // never backwards
  line.advance_to(100);
  line.finish();
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\r'), 3) << text;
  EXPECT_NE(text.find("\rrun simulation: 40/100 % done, about "), std::string::npos) << text;
  EXPECT_NE(text.find("\rrun simulation: 100/100 % done\033[K\n"), std::string::npos) << text;
}

// Issue 55: a search that stops early (plan's pruning) ends at N/N, not N of all it might have
// done; the line is redrawn with the new total.
TEST(ProgressLine, SetTotalWhenFewerItemsAfterAll) {
  std::ostringstream out;
  ProgressLine line(&out, "plan", "points", 10);
  line.item_done();
  line.set_total(2, ", 0 skipped");
  line.set_total(2, ", 0 skipped");  // unchanged: not redrawn
  line.item_done();
  line.finish();
  const std::string text = out.str();
  EXPECT_NE(text.find("\rplan: 1/2 points done, 0 skipped, about "), std::string::npos) << text;
  EXPECT_NE(text.find("\rplan: 2/2 points done\033[K\n"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\r'), 4) << text;
}

// Issue 19: a sweep whose stderr is a file or a pipe wrote nothing until it ended.
TEST(ProgressLine, LogLinesAtMostOnePerIntervalAndTheLast) {
  std::ostringstream out;
  ProgressLine line(&out, "sweep", "points", 3, 0, "", std::chrono::hours(1));
  EXPECT_EQ(out.str(), "");  // nothing before the first item
  line.item_done(", 0 skipped, 0 failed");
  line.item_done(", 0 skipped, 0 failed");
  EXPECT_EQ(out.str(), "");  // within the interval
  line.item_done(", 1 skipped, 0 failed");
  line.finish();
  EXPECT_EQ(out.str(), "sweep: 3/3 points done, 1 skipped, 0 failed\n");
}

TEST(ProgressLine, LogLinesForEveryItemWithoutAnInterval) {
  std::ostringstream out;
  ProgressLine line(&out, "sweep", "points", 2, 0, "", std::chrono::seconds(0));
  line.item_done();
  line.item_done();
  line.finish();
  const std::string text = out.str();
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_EQ(text.rfind("sweep: 1/2 points done, about ", 0), 0u) << text;
  EXPECT_NE(text.find(" left\nsweep: 2/2 points done\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace trainsim
