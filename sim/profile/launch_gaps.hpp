#pragma once
// The GPU's idle time between kernels queued back to back on a stream, measured in a
// profiler trace: for two consecutive kernels a, b of one stream whose launch call for b
// had returned before a ended (b was already queued, so the host did not keep the GPU
// waiting), the gap is b's start less a's end. Its median is what a step pays per kernel
// beyond the kernels' own times (training.kernel_gap).

#include <cstddef>

#include "sim/profile/profiler_trace.hpp"

namespace trainsim::profile {

struct LaunchGaps {
  std::size_t pairs = 0;  ///< queued consecutive kernel pairs measured
  double median_s = 0;    ///< their median gap, seconds (0 when no pair)
};

/// The queued kernel pairs of every GPU stream of `trace` and their median gap.
LaunchGaps measure_launch_gaps(const ProfilerTrace& trace);

}  // namespace trainsim::profile
