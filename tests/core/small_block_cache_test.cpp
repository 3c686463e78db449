// The cache of freed small blocks (sim/core/small_block_cache.hpp): a block is handed only to
// a request it holds, by glibc's chunk sizes (malloc.c: request + 8 bytes of header, rounded
// up to 16, at least 32).

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <vector>

#include "sim/core/address_sanitizer.hpp"
#include "sim/core/small_block_cache.hpp"

namespace trainsim {
namespace {

TEST(SmallBlockCache, ChunkOfRequestIsGlibcsRounding) {
  EXPECT_EQ(SmallBlockCache::chunk_of_request(0), 32u);
  EXPECT_EQ(SmallBlockCache::chunk_of_request(24), 32u);
  EXPECT_EQ(SmallBlockCache::chunk_of_request(25), 48u);
  EXPECT_EQ(SmallBlockCache::chunk_of_request(40), 48u);
  EXPECT_EQ(SmallBlockCache::chunk_of_request(1032), 1040u);
}

TEST(SmallBlockCache, GivesBackTheBlockOfTheSameChunkLastKept) {
  SmallBlockCache cache;
  EXPECT_EQ(cache.take(40), nullptr);
  alignas(16) unsigned char a[48], b[48], c[64];
  ASSERT_TRUE(cache.keep(a, 40));
  ASSERT_TRUE(cache.keep(b, 40));
  ASSERT_TRUE(cache.keep(c, 56));
  EXPECT_EQ(cache.take(25), b);  // chunk 48: the last kept first
  EXPECT_EQ(cache.take(40), a);
  EXPECT_EQ(cache.take(33), nullptr);  // chunk 48, empty now; c is a 64-byte chunk
  EXPECT_EQ(cache.take(41), c);
  EXPECT_EQ(cache.take(56), nullptr);
}

TEST(SmallBlockCache, LeavesLargeAndOddBlocksToFree) {
  SmallBlockCache cache;
  alignas(16) unsigned char block[2048];
  EXPECT_FALSE(cache.keep(block, 1048));  // chunk 1056: past glibc's own cache
  EXPECT_FALSE(cache.keep(block, 50));    // not a chunk size
  EXPECT_TRUE(cache.keep(block, 1032));
  EXPECT_EQ(cache.take(1033), nullptr);  // never handed to a request past the largest chunk
  EXPECT_EQ(cache.take(1032), block);
}

// A sized delete files the block by its request's chunk: any later request of that chunk
// gets it, however large glibc made it.
TEST(SmallBlockCache, FilesASizedDeleteByItsRequest) {
  SmallBlockCache cache;
  alignas(16) unsigned char block[64];
  ASSERT_TRUE(cache.keep_request(block, 30));  // chunk 48
  EXPECT_EQ(cache.take(41), nullptr);            // chunk 64
  EXPECT_EQ(cache.take(40), block);
  EXPECT_FALSE(cache.keep_request(block, 1033));
}

// Blocks from glibc itself, of every small size: malloc_usable_size + 8 is a chunk the cache
// files, at least the chunk of the request, and a request of the block's whole usable size
// gets that block back.
TEST(SmallBlockCache, FilesGlibcsBlocksByTheirChunk) {
  if (k_address_sanitizer) GTEST_SKIP() << "the sanitizer's allocator has other sizes";
  SmallBlockCache cache;
  std::vector<void*> blocks;
  for (std::size_t n = 0; n <= 1024; ++n) {
    void* const p = std::malloc(n == 0 ? 1 : n);
    ASSERT_NE(p, nullptr);
    const std::size_t usable = malloc_usable_size(p);
    EXPECT_GE(usable + 8, SmallBlockCache::chunk_of_request(n)) << n;
    ASSERT_TRUE(cache.keep(p, usable)) << n;
    EXPECT_EQ(cache.take(usable), p) << n;
    blocks.push_back(p);
  }
  for (void* p : blocks) std::free(p);
}

}  // namespace
}  // namespace trainsim
