#include "sim/cli/formatted_number.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <vector>

namespace trainsim::cli {

namespace {

// Past this magnitude a fixed-point conversion prints in scientific notation instead: a
// 1e300-day MTBF in hours would print 300 digits. No valid result comes near it.
constexpr double k_largest_fixed = 1e15;

// `format` with its conversion `%...f` turned into `%...e`, for values too large for fixed
// notation; the text around it (the unit) stays.
std::string scientific(const char* format) {
  std::string f = format;
  for (std::size_t i = f.find('%'); i != std::string::npos; i = f.find('%', i + 2)) {
    if (i + 1 < f.size() && f[i + 1] == '%') continue;  // a literal '%'
    std::size_t c = i + 1;
    while (c < f.size() && !std::isalpha(static_cast<unsigned char>(f[c]))) ++c;
    if (c < f.size() && f[c] == 'f') f[c] = 'e';
    break;
  }
  return f;
}

}  // namespace

std::string formatted(const char* format, double value) {
  const std::string f = std::fabs(value) >= k_largest_fixed ? scientific(format) : std::string(format);
  // Sized to fit: a cut would drop the unit after the number.
  const int n = std::snprintf(nullptr, 0, f.c_str(), value);
  if (n <= 0) return "";
  std::vector<char> buf(static_cast<std::size_t>(n) + 1);
  std::snprintf(buf.data(), buf.size(), f.c_str(), value);
  return std::string(buf.data(), static_cast<std::size_t>(n));
}

}  // namespace trainsim::cli
