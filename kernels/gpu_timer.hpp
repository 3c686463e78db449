#pragma once
// Times GPU work with CUDA events after warm-up.

#include <cuda_runtime.h>

#include <functional>

namespace trainsim::kernels {

struct TimingPolicy {
  int warmup_calls = 2;    ///< untimed calls first (cuBLASLt setup, clocks ramping up, caches)
  double target_s = 0.02;  ///< timed calls run for at least this long in total ...
  int min_calls = 3;       ///< ... and at least this many times ...
  int max_calls = 1000;    ///< ... and at most this many
};

/// Seconds per call of `launch` (which enqueues work on `stream`), averaged over back-to-back
/// calls between two CUDA events after `policy.warmup_calls` untimed calls. Throws
/// std::runtime_error on a CUDA error.
double time_per_call_s(const std::function<void()>& launch, cudaStream_t stream, const TimingPolicy& policy = {});

}  // namespace trainsim::kernels
