#include <gtest/gtest.h>

#include "sim/core/units.hpp"

namespace trainsim::units {
namespace {

TEST(Units, BandwidthBitsAndBytes) {
  EXPECT_DOUBLE_EQ(*parse_bandwidth("450GB/s"), 450e9);
  EXPECT_DOUBLE_EQ(*parse_bandwidth("400Gb/s"), 50e9);
  EXPECT_DOUBLE_EQ(*parse_bandwidth("1 GiB/s"), 1073741824.0);
  EXPECT_FALSE(parse_bandwidth("450"));
  EXPECT_FALSE(parse_bandwidth("450GB"));
  EXPECT_FALSE(parse_bandwidth("-1GB/s"));
}

TEST(Units, BytesDecimalAndBinary) {
  EXPECT_DOUBLE_EQ(*parse_bytes("80GiB"), 80.0 * 1073741824.0);
  EXPECT_DOUBLE_EQ(*parse_bytes("141GB"), 141e9);
  EXPECT_DOUBLE_EQ(*parse_bytes("25MiB"), 25.0 * 1048576.0);
  EXPECT_FALSE(parse_bytes("80"));
  EXPECT_FALSE(parse_bytes("80gib"));
}

TEST(Units, Durations) {
  EXPECT_DOUBLE_EQ(*parse_duration("2us"), 2e-6);
  EXPECT_DOUBLE_EQ(*parse_duration("1.5ms"), 1.5e-3);
  EXPECT_DOUBLE_EQ(*parse_duration("4h"), 14400.0);
  EXPECT_DOUBLE_EQ(*parse_duration("14d"), 14 * 86400.0);
  EXPECT_DOUBLE_EQ(*parse_duration("10min"), 600.0);
  EXPECT_FALSE(parse_duration("2"));
  EXPECT_FALSE(parse_duration("2 weeks"));
  EXPECT_FALSE(parse_duration("1e308d"));  // overflows: no finite duration
  EXPECT_FALSE(parse_bytes("1e308TiB"));
}

TEST(Units, DurationsBelowASecondAreTheLiteralsDouble) {
  // 30 x 1e-6 is one ulp off 30e-6; 30 / 1e6 is the literal's double. A host cost given as
  // "30us" must equal the built-in 30e-6 to the bit (the same step either way).
  EXPECT_EQ(*parse_duration("30us"), 30e-6);
  EXPECT_EQ(*parse_duration("6us"), 6e-6);
  EXPECT_EQ(*parse_duration("10.5us"), 10.5e-6);
  EXPECT_EQ(*parse_duration("3ms"), 3e-3);
  EXPECT_EQ(*parse_duration("7ns"), 7e-9);
}

}  // namespace
}  // namespace trainsim::units
