#pragma once
// Which CPU op launched each piece of GPU work. A GPU event's args.correlation names its
// launch (the cuda_runtime event with the same correlation, on the CPU thread that made
// it); the ops open on that thread at the launch's start enclose it, the innermost being
// the op that called into CUDA (PyTorch's profiler records ops as nested ranges on their
// thread). Where no op on that thread is open, the launch's args."External id", which
// Kineto copies from the innermost op, names it instead.

#include <cstddef>
#include <vector>

#include "sim/profile/profiler_trace.hpp"

namespace trainsim::profile {

/// One GPU activity and the ops that launched it.
struct LaunchedWork {
  std::size_t activity = 0;           ///< index into ProfilerTrace::gpu
  bool launch_found = false;          ///< its correlation matched a runtime call
  std::vector<std::size_t> op_chain;  ///< indices into ProfilerTrace::ops, outermost first; empty if none
};

/// Every entry of trace.gpu, in order, with its enclosing ops.
std::vector<LaunchedWork> pair_launches(const ProfilerTrace& trace);

}  // namespace trainsim::profile
