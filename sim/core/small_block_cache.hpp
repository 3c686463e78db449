#pragma once
// Freed small blocks kept for the next request of their size, in front of glibc's malloc.
//
// Why (issue 59.5, docs/engineering/full-speed.md): the exact 405B step at 16,384 GPUs spent
// about a fifth of its CPU in glibc's allocator (_int_malloc, _int_free, malloc_consolidate,
// unlink_chunk; perf), most of it SimGrid's own C++ allocations around each parallel task
// (the L07 action, its routes, its variable's elements) made and freed by the thousand at
// one instant. glibc's per-thread cache keeps 7 blocks of a size (glibc.malloc.tcache_count,
// manual "Memory Allocation Tunables"); past that, frees go to the fast and unsorted bins and
// are merged and split again. With that count raised to 65,000 (GLIBC_TUNABLES) the same run
// took 8.35 s of user CPU against 10.85 s, and 10.97 against 12.96 (the two taking turns,
// 2026-12-07, load 7 to 10), every output the same. A tunable is read once, at the process'
// start, so the program keeps such a cache itself: sim/cli/replaced_operator_new.cpp routes
// the C++ allocations (operator new and delete, which the C++ standard lets a program
// replace, SimGrid's included) through it.
//
// A block is filed by glibc's chunk size (malloc_usable_size + 8, a multiple of 16: glibc's
// malloc.c, "chunk sizes", for a block not mapped on its own) and handed to any later request
// whose chunk is that size, so every block given out holds what was asked. Blocks stay in
// the cache (their memory is not returned to malloc): a process holds at most, per size, the
// most it ever held at once. Addresses change, nothing else: no result of trainsim depends
// on an address (DESIGN.md, determinism).

#include <array>
#include <cstddef>

namespace trainsim {

class SmallBlockCache {
 public:
  /// The largest chunk kept: glibc's own cache stops there too (1,032 bytes usable).
  static constexpr std::size_t k_largest_chunk = 1040;

  /// glibc's chunk for a request of `bytes` (header and alignment to 16 included, at least 32).
  static constexpr std::size_t chunk_of_request(std::size_t bytes) {
    const std::size_t chunk = (bytes + 8 + 15) & ~std::size_t{15};
    return chunk < 32 ? 32 : chunk;
  }

  /// A kept block for a request of `bytes`, or null (none kept, or too large).
  void* take(std::size_t bytes) {
    if (bytes > k_largest_chunk - 8) return nullptr;
    void*& head = heads_[chunk_of_request(bytes) / 16];
    void* const block = head;
    if (block != nullptr) head = *static_cast<void**>(block);
    return block;
  }

  /// Keeps `block`, whose usable size is `usable`; false (the caller frees it) when its chunk
  /// is too large or not a chunk glibc's heap would make.
  bool keep(void* block, std::size_t usable) {
    const std::size_t chunk = usable + 8;
    if (chunk > k_largest_chunk || chunk % 16 != 0 || chunk < 32) return false;
    file(block, chunk);
    return true;
  }

  /// Keeps `block`, allocated for a request of `bytes` (a sized delete: glibc's header is not
  /// read; a block glibc made larger than the request's chunk is filed as that chunk, the
  /// bytes past it unused); false (the caller frees it) when too large.
  bool keep_request(void* block, std::size_t bytes) {
    if (bytes > k_largest_chunk - 8) return false;
    file(block, chunk_of_request(bytes));
    return true;
  }

 private:
  void file(void* block, std::size_t chunk) {
    void*& head = heads_[chunk / 16];
    *static_cast<void**>(block) = head;
    head = block;
  }

  std::array<void*, k_largest_chunk / 16 + 1> heads_{};  // per chunk size: a list through the blocks' first word
};

}  // namespace trainsim
