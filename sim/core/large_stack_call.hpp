#pragma once
// Runs a function on a thread with a large stack, for SimGrid's engine.
//
// Why: SimGrid 3.32 marks the constraints a change touches by a recursive walk over their
// connected set (lmm::System::update_modified_cnst_set_rec, one frame per constraint on the
// walk), on the stack of the thread that runs the engine. A 32,768-GPU ring all-reduce
// walked ~87,000 constraints deep and overflowed the 8 MiB main stack (SIGSEGV), and so did
// a 131,072-GPU tree all-reduce. The set is large because the fabric is shared: every leg of a collective
// crosses its rail's or pod's uplinks, so one connected set of constraints spans the
// cluster, and cutting it would drop contention. So the engine runs on a thread whose stack
// we size: pthread attributes can (std::thread cannot), the pages are committed only as
// the walk reaches them, and the engine (whose maestro context is per thread) is created,
// run and destroyed on that thread.

#include <cstddef>
#include <functional>

namespace trainsim {

/// Stack reserved for the thread that runs a simulation, bytes: 1 GiB of address space
/// (committed only as used). The walk takes ~100 bytes per constraint (87,000 frames
/// overflowed 8 MiB), so 1 GiB holds ~10 million, ten times what 2^20 GPUs connect.
inline constexpr std::size_t k_simulation_stack_bytes = std::size_t{1} << 30;

/// Prepares the process' heap for the simulation (simulation_heap.hpp), then runs `fn` on a
/// new thread with a `stack_bytes` stack (at most a quarter of the process' address-space
/// limit, when `ulimit -v` sets one) and waits for it; an exception `fn` throws is rethrown
/// here. The new thread has the caller's signal mask; the caller blocks every signal while it
/// waits, so that signals sent to the process go to `fn`'s thread. Throws trainsim::Error
/// when the thread cannot be created.
void large_stack_call(const std::function<void()>& fn, std::size_t stack_bytes = k_simulation_stack_bytes);

}  // namespace trainsim
