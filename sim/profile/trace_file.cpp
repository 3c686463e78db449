#include "sim/profile/trace_file.hpp"

#include <array>
#include <cctype>
#include <fstream>
#include <string_view>

#include "sim/core/bounded_read.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"

namespace trainsim::profile {

std::string read_trace_text(const std::string& path) {
  const std::string bytes =
      read_input_file(path, {"the profiler trace", "cannot open the profiler trace", k_max_profiler_trace_bytes});
  return starts_as_gzip(bytes) ? gunzip_capped(bytes, k_max_profiler_trace_bytes, path, "the profiler trace") : bytes;
}

bool looks_like_profiler_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::array<char, 2> head{};
  in.read(head.data(), 2);
  if (starts_as_gzip(std::string_view(head.data(), static_cast<std::size_t>(in.gcount())))) return true;
  in.clear();
  in.seekg(0);
  // A file of blanks without end (a FIFO) is not a trace: look at the first MiB only.
  char c = 0;
  for (int looked = 0; looked < (1 << 20) && in.get(c); ++looked)
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '{' || c == '[';
  return false;
}

}  // namespace trainsim::profile
