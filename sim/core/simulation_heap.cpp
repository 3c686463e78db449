#include "sim/core/simulation_heap.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "sim/core/address_sanitizer.hpp"

namespace trainsim {

namespace {

constexpr std::uintptr_t k_huge_page = std::uintptr_t{2} << 20;

std::uintptr_t huge_page_up(std::uintptr_t a) { return (a + k_huge_page - 1) & ~(k_huge_page - 1); }
std::uintptr_t huge_page_down(std::uintptr_t a) { return a & ~(k_huge_page - 1); }

// The heap's end (the program break), or 0 when it cannot be read.
std::uintptr_t heap_end() {
  void* const end = sbrk(0);
  return end == reinterpret_cast<void*>(-1) ? 0 : reinterpret_cast<std::uintptr_t>(end);
}

// Grows the main arena by `bytes` of address space (untouched: nothing becomes resident),
// hands it back to the arena's top, and asks the kernel for transparent huge pages over it.
void reserve_huge_heap(std::size_t bytes) {
  if (k_address_sanitizer) return;  // its allocator maps blocks of its own: no break to advise
  if (rlimit as{}; getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur != RLIM_INFINITY) return;
  const std::uintptr_t before = heap_end();
  if (before == 0) return;
  void* block = std::malloc(bytes);  // from the break: M_MMAP_MAX is 0
  if (block == nullptr) return;
  std::free(block);  // back to the top chunk, and kept there (M_TRIM_THRESHOLD)
  const std::uintptr_t first = huge_page_up(before), last = huge_page_down(heap_end());
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // advice only
}

}  // namespace

void prepare_simulation_heap() {
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_MMAP_MAX, 0);
  reserve_huge_heap(std::size_t{512} << 20);  // below M_TRIM_THRESHOLD, or free() would trim it
}

void end_huge_page_heap() {
  const std::uintptr_t end = heap_end();
  if (end == 0) return;
  // The arena's top chunk, [end - keepcost, end), is untouched but for its header.
  const std::uintptr_t first = huge_page_up(end - mallinfo2().keepcost), last = huge_page_down(end);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_NOHUGEPAGE);
}

}  // namespace trainsim
