#pragma once
// The heap a large simulation allocates from, set up before it starts (glibc malloc).
//
// What cost a large simulation time in the allocator (perf, SimGrid 3.32, 2 cores):
// - glibc gives a new thread its own arena, which grows by mprotect a few pages at a time:
//   building a 65,536-GPU platform spent 18 % of a step's simulation in that growth. One
//   arena (the main one, grown by brk) with 64 MiB of padding per growth, and no trimming
//   below 1 GiB free, takes ~10 % off the step at 65,536 GPUs.
// - Setting those options turns off glibc's sliding mmap threshold (mallopt(3)), so every
//   block of 128 KiB or more was mapped and unmapped on its own: a parallel task's 128 x 128
//   byte matrix (sim/engine/plan_runner.cpp) and every SimGrid actor's stack, page faults and
//   munmap included. Blocks up to the largest threshold glibc allows (32 MiB on 64-bit) now
//   come from the arena and are reused: a 131,072-GPU step took 18.6 s of user CPU instead
//   of 20.7 s (one run each, back to back), peak RSS and simulated times unchanged.
// - Blocks over that threshold were still mapped on their own: a 1,048,576-GPU collective's
//   plan allocates arrays of hundreds of MB (legs, host pairs, links), frees them, and the
//   platform and simulation then faulted fresh pages in again (page faults were 18 % of a
//   262,144-GPU ring, perf). No block is mapped on its own now: every one comes from the
//   arena, and what is freed is reused. 1 GiB all-reduce on 1,048,576 GPUs, back to back:
//   tree 50.6 -> 36.8 s (peak RSS 2.54 GB both), ring 30.3 -> 18.7-24.0 s (peak RSS 1.89 ->
//   2.55 GB: freed blocks stay in the arena); the 405B step unchanged.
// - Each fresh 4 KiB page costs a page fault, and on this project's 2-core virtual machines
//   a fault costs about 15 us (touching 40 MiB: 156 ms of CPU in 4 KiB pages, 18 ms in
//   2 MiB transparent huge pages; perf stat, 2026-12-07): a 4,096-GPU `trainsim collective`
//   took 4,343 faults, 2,300 of them its heap. So the heap asks for huge pages (madvise;
//   the kernel's default, THP "madvise", grants them) while a command plans, before SimGrid's
//   engine exists, and no longer once it does: every SimGrid actor's stack comes from this
//   heap (8 MiB each, touched at its top), and in a huge page each would hold 2 MiB
//   (2,048 stage actors: 4 GiB). Results do not depend on it: addresses only.

namespace trainsim {

/// Configures glibc's allocator as above, and reserves 512 MiB of address space for the heap
/// (not memory: pages become resident as they are touched) over which it asks for huge
/// pages; no reservation when `ulimit -v` sets a limit. Call before the simulation allocates, from the
/// process' only allocating thread; harmless under AddressSanitizer (whose allocator
/// ignores mallopt).
void prepare_simulation_heap();

/// Ends the huge pages of prepare_simulation_heap for the part of the heap not yet used:
/// called as SimGrid's engine is created (sim/engine/simulation.cpp). What was touched
/// before keeps its pages.
void end_huge_page_heap();

}  // namespace trainsim
