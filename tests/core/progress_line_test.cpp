// The progress line: items done, reused, the caller's note and the time left, redrawn in place.

#include "sim/core/progress_line.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace trainsim
