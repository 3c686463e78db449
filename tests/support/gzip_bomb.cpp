#include "support/gzip_bomb.hpp"

#include <zlib.h>

#include <fstream>
#include <stdexcept>
#include <vector>

namespace trainsim::testing {

namespace {

// One gzip member (windowBits 15 + 16) of `mib` MiB of zeros, at zlib's best compression.
std::string gzip_member_of_zeros(int mib) {
  z_stream z{};
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2");
  std::vector<unsigned char> zeros(std::size_t{1} << 20, 0);
  std::vector<unsigned char> out(std::size_t{1} << 20);
  std::string member;
  for (int i = 0; i < mib; ++i) {
    z.next_in = zeros.data();
    z.avail_in = static_cast<uInt>(zeros.size());
    const int flush = i + 1 == mib ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = out.data();
      z.avail_out = static_cast<uInt>(out.size());
      deflate(&z, flush);
      member.append(reinterpret_cast<const char*>(out.data()), out.size() - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  return member;
}

}  // namespace

void write_gzip_bomb(const std::string& path, std::size_t inflated_bytes) {
  constexpr int k_member_mib = 64;
  const std::string member = gzip_member_of_zeros(k_member_mib);
  std::ofstream out(path, std::ios::binary);
  for (std::size_t written = 0; written < inflated_bytes; written += std::size_t{k_member_mib} << 20)
    out.write(member.data(), static_cast<std::streamsize>(member.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace trainsim::testing
