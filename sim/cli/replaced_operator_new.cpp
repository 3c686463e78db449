// The program's operator new and delete (C++ standard, [replacement.functions]): small
// blocks through a SmallBlockCache in front of glibc's malloc (sim/core/small_block_cache.hpp
// says why). Linked into the trainsim executable only; the shared libraries' C++ allocations
// (SimGrid's) resolve to these too, the executable's definitions coming first. One cache per
// thread (a block freed on another thread joins that thread's cache, as glibc's own does).
// Under AddressSanitizer the sanitizer's allocator stays: it checks every new against its
// delete.

#include <malloc.h>

#include <cstdlib>
#include <new>

#include "sim/core/small_block_cache.hpp"

// The preprocessor's view of k_address_sanitizer (sim/core/address_sanitizer.hpp).
#if defined(__SANITIZE_ADDRESS__)
#define TRAINSIM_REPLACE_NEW 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRAINSIM_REPLACE_NEW 0
#endif
#endif
#ifndef TRAINSIM_REPLACE_NEW
#define TRAINSIM_REPLACE_NEW 1
#endif

#if TRAINSIM_REPLACE_NEW

namespace {

// The allocator's state is the process' by the standard's definition of a replacement
// operator new; it holds no result, only freed blocks.
thread_local trainsim::SmallBlockCache t_cache;

void* allocate(std::size_t bytes) {
  if (void* const block = t_cache.take(bytes)) return block;
  for (;;) {
    if (void* const block = std::malloc(bytes == 0 ? 1 : bytes)) return block;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

void release(void* block) noexcept {
  if (block == nullptr) return;
  if (!t_cache.keep(block, malloc_usable_size(block))) std::free(block);
}

// A sized delete: the size the block was asked for (C++14 sized deallocation, GCC's default).
void release(void* block, std::size_t bytes) noexcept {
  if (block == nullptr) return;
  if (!t_cache.keep_request(block, bytes)) std::free(block);
}

}  // namespace

void* operator new(std::size_t bytes) { return allocate(bytes); }
void* operator new[](std::size_t bytes) { return allocate(bytes); }
void operator delete(void* block) noexcept { release(block); }
void operator delete[](void* block) noexcept { release(block); }
void operator delete(void* block, std::size_t bytes) noexcept { release(block, bytes); }
void operator delete[](void* block, std::size_t bytes) noexcept { release(block, bytes); }

#endif
