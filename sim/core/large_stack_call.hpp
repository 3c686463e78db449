#pragma once
// Runs a function on a thread with a large stack, for SimGrid's engine.
//
// Why: SimGrid 3.32 marks the constraints a change touches by a recursive walk over their
// connected set (lmm::System::update_modified_cnst_set_rec, one frame per constraint on the
// walk), on the stack of the thread that runs the engine. A 32,768-GPU ring all-reduce or
// a 131,072-GPU tree walks ~87,000 constraints deep and overflowed the 8 MiB main stack
// (SIGSEGV). The set is large because the fabric is shared: every leg of a collective
// crosses its rail's or pod's uplinks, so one connected set of constraints spans the
// cluster, and cutting it would drop contention. So the engine runs on a thread whose stack
// we size: pthread attributes can (std::thread cannot), the pages are committed only as
// the walk reaches them, and the engine (whose maestro context is per thread) is created,
// run and destroyed on that thread.

#include <cstddef>
#include <functional>

namespace trainsim {

/// Stack reserved for the thread that runs a simulation, bytes: 4 GiB of address space.
/// Measured: 1,048,576 GPUs need about TODO of it (README "Benchmarks").
inline constexpr std::size_t k_simulation_stack_bytes = std::size_t{4} << 30;

/// Runs `fn` on a new thread with a `stack_bytes` stack and waits for it; an exception `fn`
/// throws is rethrown here. Throws trainsim::Error when the thread cannot be created.
void large_stack_call(const std::function<void()>& fn, std::size_t stack_bytes = k_simulation_stack_bytes);

}  // namespace trainsim
