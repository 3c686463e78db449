// Lists and ranges of a sweep file's [vary] values, and one test per malformed form.

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/sweep/value_list.hpp"

namespace trainsim::sweep {
namespace {

using Values = std::vector<std::string>;

Values expand(const std::string& text) {
  return expand_values("s.ini", "vary.k", text);
}

TEST(ValueList, ListsKeepTheTextAsWritten) {
  EXPECT_EQ(expand("1, 2,4 ,8"), (Values{"1", "2", "4", "8"}));
  EXPECT_EQ(expand("fat-tree,ideal"), (Values{"fat-tree", "ideal"}));
  EXPECT_EQ(expand("400Gb/s"), (Values{"400Gb/s"}));
}

TEST(ValueList, EllipsisContinuesTheProgression) {
  EXPECT_EQ(expand("8,16,32,...,256"), (Values{"8", "16", "32", "64", "128", "256"}));
  EXPECT_EQ(expand("2,4,6,...,12"), (Values{"2", "4", "6", "8", "10", "12"}));
  EXPECT_EQ(expand("8,16,32,...,2048").size(), 9u);
}

// Issue 19: decreasing progressions were refused with a false message.
TEST(ValueList, DecreasingProgressions) {
  EXPECT_EQ(expand("512,256,...,16"), (Values{"512", "256", "128", "64", "32", "16"}));
  EXPECT_EQ(expand("512,256,128,...,16"), (Values{"512", "256", "128", "64", "32", "16"}));
  EXPECT_EQ(expand("12,10,8,...,2"), (Values{"12", "10", "8", "6", "4", "2"}));
  EXPECT_EQ(expand("512..16 x0.5"), (Values{"512", "256", "128", "64", "32", "16"}));
  EXPECT_EQ(expand("100..70 +-10"), (Values{"100", "90", "80", "70"}));
  EXPECT_EQ(expand("4h..1h x0.5"), (Values{"4h", "2h", "1h"}));
  EXPECT_EQ(expand("4h..30min x0.5"), (Values{"14400s", "7200s", "3600s", "1800s"}));
}

TEST(ValueList, Ranges) {
  EXPECT_EQ(expand("8..64 x2"), (Values{"8", "16", "32", "64"}));
  EXPECT_EQ(expand("1..4 +1"), (Values{"1", "2", "3", "4"}));
  EXPECT_EQ(expand("1..10 x3"), (Values{"1", "3", "9"}));
  EXPECT_EQ(expand("0.5..2 +0.5"), (Values{"0.5", "1", "1.5", "2"}));
  EXPECT_EQ(expand("1ms..4ms x2"), (Values{"1ms", "2ms", "4ms"}));
  EXPECT_EQ(expand("10min..1h x2"), (Values{"600s", "1200s", "2400s"}));
  EXPECT_EQ(expand("1,2..4 +1,16"), (Values{"1", "2", "3", "4", "16"}));
}

void expect_rejected(const std::string& text, const std::string& rule_part) {
  try {
    expand(text);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "s.ini");
    EXPECT_EQ(e.key(), "vary.k");
    EXPECT_EQ(e.value(), text);
    EXPECT_NE(e.rule().find(rule_part), std::string::npos) << e.rule();
  }
}

TEST(ValueList, EmptyItem) {
  expect_rejected("1,,2", "empty");
}
TEST(ValueList, RangeWithoutStep) {
  expect_rejected("1..8", "a..b xK");
}
TEST(ValueList, GeometricFactorOne) {
  expect_rejected("1..8 x1", "other than 1");
}
TEST(ValueList, GeometricFromZero) {
  expect_rejected("0..8 x2", "ends > 0");
}
TEST(ValueList, ArithmeticStepZero) {
  expect_rejected("1..8 +0", "other than 0");
}
TEST(ValueList, RangeBackwards) {
  expect_rejected("8..1 +1", "must not exceed");
}
TEST(ValueList, RangeDownwardsFromBelow) {
  expect_rejected("1..8 x0.5", "must start above its end");
}
TEST(ValueList, EllipsisDownwardsMissesTheEnd) {
  expect_rejected("512,256,128,...,20", "does not reach");
}
TEST(ValueList, MixedUnits) {
  expect_rejected("1GB..8ms x2", "same unit");
}
TEST(ValueList, EllipsisTooEarly) {
  expect_rejected("8,...,64", "three terms");
}
TEST(ValueList, EllipsisAfterTwoAmbiguousTerms) {
  expect_rejected("8,16,...,64", "give three");  // 8,16,24,...,64 and 8,16,32,64 both reach it
}
TEST(ValueList, EllipsisNotAProgression) {
  expect_rejected("1,2,5,...,64", "neither");
}
TEST(ValueList, EllipsisMissesTheEnd) {
  expect_rejected("8,16,32,...,100", "does not reach");
}
TEST(ValueList, EllipsisWithoutEnd) {
  expect_rejected("8,16,32,...", "last term");
}
TEST(ValueList, TooManyValues) {
  expect_rejected("1..1000000 +1", "more than 100000");
}

}  // namespace
}  // namespace trainsim::sweep
