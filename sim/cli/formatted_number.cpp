#include "sim/cli/formatted_number.hpp"

#include <cstdio>

namespace trainsim::cli {

std::string formatted(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

}  // namespace trainsim::cli
