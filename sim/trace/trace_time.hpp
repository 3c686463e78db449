#pragma once
// Simulated times as the JSON traces write them (Chrome trace, Kineto): microseconds with
// nanosecond resolution, from whole nanoseconds.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace trainsim {

/// A time in whole nanoseconds, the traces' resolution. A slice's start and end are rounded,
/// and its duration is their difference: rounding the duration on its own let a slice end 1 ns
/// after its neighbour began, and Perfetto drops such overlapping slices (issue 55).
inline long long trace_nanoseconds(double seconds) {
  return std::llround(seconds * 1e9);
}

/// Microseconds with nanosecond resolution, from whole nanoseconds: exact, and equal inputs
/// byte-equal.
inline std::string trace_micros(long long ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%lld.%03lld", ns < 0 ? "-" : "", std::llabs(ns) / 1000, std::llabs(ns) % 1000);
  return buf;
}

}  // namespace trainsim
