#include "sim/core/bounded_read.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "sim/core/error.hpp"

namespace trainsim {

namespace {

constexpr std::size_t k_chunk_bytes = std::size_t{1} << 16;

}  // namespace

void refuse_past_cap(const std::string& path, const std::string& what, std::size_t cap_bytes, const char* verb) {
  throw InputError(path, "", "", what + " " + verb + " more than " + cap_text(cap_bytes) + ", the most trainsim reads");
}

std::ifstream opened_input(const std::string& path, const std::string& cannot_open) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  const int error = errno;
  // A folder opens (fopen "r" of a directory succeeds on Linux) and fails at the first read.
  std::error_code ec;
  if (in && std::filesystem::is_directory(path, ec))
    throw InputError(path, "", "", cannot_open + ": " + std::generic_category().message(EISDIR));
  if (!in) throw InputError(path, "", "", cannot_open + ": " + (error != 0 ? std::strerror(error) : "unknown reason"));
  return in;
}

std::string read_capped(std::istream& in, std::size_t cap_bytes, const std::string& path, const std::string& what,
                        std::size_t expected_bytes) {
  std::string bytes;
  // One chunk more, so that a file that grew meanwhile does not double the string at once.
  if (expected_bytes > 0) bytes.reserve(std::min(expected_bytes, cap_bytes) + k_chunk_bytes);
  std::array<char, k_chunk_bytes> chunk{};
  errno = 0;
  while (in) {
    in.read(chunk.data(), chunk.size());
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got > cap_bytes - bytes.size()) refuse_past_cap(path, what, cap_bytes, "holds");
    bytes.append(chunk.data(), got);
  }
  if (in.bad()) throw InputError(path, "", "", what + " cannot be read" + (errno != 0 ? std::string(": ") + std::strerror(errno) : ""));
  return bytes;
}

bool starts_as_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip_capped(std::string_view gz, std::size_t cap_bytes, const std::string& path,
                          const std::string& what) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw InputError(path, "", "", "zlib cannot start inflating " + what);
  std::string text;
  std::array<char, k_chunk_bytes> chunk{};
  // zlib's avail_in is 32 bits: a larger input is fed in pieces.
  std::string_view rest = gz;
  auto feed = [&]() {
    const auto n = std::min<std::size_t>(rest.size(), 1u << 30);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(rest.data()));
    z.avail_in = static_cast<uInt>(n);
    rest.remove_prefix(n);
  };
  feed();
  int status = Z_OK;
  for (;;) {
    if (z.avail_in == 0 && !rest.empty()) feed();
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    z.avail_out = static_cast<uInt>(chunk.size());
    status = inflate(&z, Z_NO_FLUSH);
    const std::size_t got = chunk.size() - z.avail_out;
    if (got > cap_bytes - text.size()) {
      inflateEnd(&z);
      refuse_past_cap(path, what, cap_bytes, "inflates to");
    }
    text.append(chunk.data(), got);
    if (status == Z_STREAM_END) {
      if (z.avail_in == 0 && rest.empty()) break;
      inflateReset(&z);  // another member follows
      continue;
    }
    if (status != Z_OK) break;
    if (z.avail_in == 0 && rest.empty() && z.avail_out != 0) break;  // the input ended inside a member
  }
  const std::string message = z.msg != nullptr ? z.msg : "";
  inflateEnd(&z);
  if (status != Z_STREAM_END)
    throw InputError(path, "", "",
                     what + " is gzip that does not decompress (" + (message.empty() ? "truncated" : message) + ")");
  return text;
}

std::string cap_text(std::size_t bytes) {
  constexpr std::size_t mib = std::size_t{1} << 20;
  constexpr std::size_t gib = std::size_t{1} << 30;
  if (bytes >= gib && bytes % gib == 0) return std::to_string(bytes / gib) + " GiB";
  if (bytes >= mib && bytes % mib == 0) return std::to_string(bytes / mib) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace trainsim
