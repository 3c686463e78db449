#pragma once
// Counter-based random numbers: a value is a hash of (key, counter), so any draw can be made
// in any order, on any rank, with the same bits. This is how PyTorch's CUDA generator works
// (Philox4x32-10, Salmon et al. SC11: its state is a seed and an offset that each kernel
// advances); the hash here is SplitMix64 (Steele, Lea and Flood, OOPSLA 2014), enough for a
// drill and the same on every platform.

#include <cstdint>

namespace trainsim::drill {

/// SplitMix64's finalizer of `x`.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// A hash of several words, order-sensitive.
inline std::uint64_t hash_words(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0, std::uint64_t d = 0) {
  return mix64(mix64(mix64(mix64(a) ^ b) ^ c) ^ d);
}

/// A uniform double in [0, 1) from the top 53 bits of `bits`.
inline double unit_interval(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1p-53;
}

/// A rank's dropout generator, as PyTorch's: a seed and an offset; each training step's
/// dropout advances the offset by one. Saved in a checkpoint; without it a restart begins
/// again at offset 0.
struct RngState {
  std::uint64_t seed = 0;
  std::uint64_t offset = 0;
  bool operator==(const RngState&) const = default;
};

}  // namespace trainsim::drill
