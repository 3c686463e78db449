// Trace levels: the names --trace-level takes.

#include "sim/trace/trace_level.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"

namespace trainsim {
namespace {

TEST(TraceLevel, UnknownLevelIsAnInputError) {
  EXPECT_EQ(parse_trace_level("steps", "--trace-level"), TraceLevel::steps);
  EXPECT_THROW(parse_trace_level("all", "--trace-level"), InputError);
}

}  // namespace
}  // namespace trainsim
