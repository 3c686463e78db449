// The progress line: points done, reused, skipped, failed and the time left, redrawn in place.

#include <gtest/gtest.h>

#include <sstream>

#include "sim/sweep/progress_line.hpp"

namespace trainsim::sweep {
namespace {

TEST(ProgressLine, CountsAndTimeLeft) {
  std::ostringstream out;
  ProgressLine line(&out, 4, 1);
  line.point_done(true, false);
  line.point_done(false, true);
  line.finish();
  const std::string text = out.str();
  EXPECT_NE(text.find("\rsweep: 1/4 points done (1 reused), 0 skipped, 0 failed"), std::string::npos) << text;
  EXPECT_NE(text.find("\rsweep: 2/4 points done (1 reused), 1 skipped, 0 failed, about "), std::string::npos) << text;
  EXPECT_NE(text.find("\rsweep: 3/4 points done (1 reused), 1 skipped, 1 failed, about "), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
}

TEST(ProgressLine, QuietWithoutATerminal) {
  ProgressLine line(nullptr, 2, 0);
  line.point_done(false, false);
  line.finish();  // nothing to draw on, nothing to crash on
  SUCCEED();
}

}  // namespace
}  // namespace trainsim::sweep
