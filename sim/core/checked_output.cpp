#include "sim/core/checked_output.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace trainsim {

namespace {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

[[noreturn]] void impossible(std::string_view quantity, double value, const char* rule) {
  char number[64];
  std::snprintf(number, sizeof number, "%.17g", value);
  throw std::logic_error("impossible result: " + std::string(quantity) + " = " + number + ", " + rule);
}

}  // namespace

double checked_output(std::string_view quantity, double value) {
  const bool fraction =
      quantity == "mfu" || quantity == "hfu" || ends_with(quantity, "_fraction") || ends_with(quantity, "_ratio");
  if (fraction && !(value >= 0 && value <= 1)) impossible(quantity, value, "a fraction must lie in [0, 1]");
  if (!fraction && ends_with(quantity, "_s") && !(std::isfinite(value) && value >= 0))
    impossible(quantity, value, "a time must be finite and >= 0");
  return value;
}

}  // namespace trainsim
