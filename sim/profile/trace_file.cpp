#include "sim/profile/trace_file.hpp"

#include <zlib.h>

#include <array>
#include <cctype>
#include <fstream>
#include <iterator>

#include "sim/core/error.hpp"

namespace trainsim::profile {

namespace {

constexpr unsigned char k_gzip_magic0 = 0x1f;  // RFC 1952 §2.3.1
constexpr unsigned char k_gzip_magic1 = 0x8b;

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == k_gzip_magic0 &&
         static_cast<unsigned char>(bytes[1]) == k_gzip_magic1;
}

// Inflates every gzip member of `bytes` (zlib's gzip wrapper: windowBits 15 + 16).
std::string gunzip(const std::string& bytes, const std::string& path) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw InputError(path, "", "", "zlib cannot start inflating");
  std::string text;
  std::array<char, 1 << 16> chunk{};
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  int status = Z_OK;
  while (true) {
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    z.avail_out = static_cast<uInt>(chunk.size());
    status = inflate(&z, Z_NO_FLUSH);
    text.append(chunk.data(), chunk.size() - z.avail_out);
    if (status == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      inflateReset(&z);  // a concatenated member (gzip allows several)
      continue;
    }
    if (status != Z_OK) break;
    if (z.avail_in == 0 && z.avail_out != 0) break;  // input ended inside the stream
  }
  const std::string message = z.msg ? z.msg : "";
  inflateEnd(&z);
  if (status != Z_STREAM_END)
    throw InputError(path, "", "",
                     "a gzip file that does not decompress (" + (message.empty() ? "truncated" : message) + ")");
  return text;
}

}  // namespace

std::string read_trace_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "", "the profiler trace cannot be opened");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return is_gzip(bytes) ? gunzip(bytes, path) : bytes;
}

bool looks_like_profiler_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::array<char, 2> head{};
  in.read(head.data(), 2);
  if (in.gcount() == 2 && static_cast<unsigned char>(head[0]) == k_gzip_magic0 &&
      static_cast<unsigned char>(head[1]) == k_gzip_magic1)
    return true;
  in.clear();
  in.seekg(0);
  char c = 0;
  while (in.get(c))
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '{' || c == '[';
  return false;
}

}  // namespace trainsim::profile
