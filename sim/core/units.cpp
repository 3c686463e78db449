#include "sim/core/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace trainsim::units {

namespace {

// value x factor / divisor: a unit below the base divides by a power of ten, so that "30us"
// is the double the literal 30e-6 is (30 / 1e6 is correctly rounded; 30 x 1e-6 is not).
struct UnitFactor {
  std::string_view unit;
  double factor;
  double divisor = 1.0;
};

// Splits "450GB/s" into 450 and "GB/s"; whitespace between number and unit is allowed.
std::optional<std::pair<double, std::string_view>> split_number(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  std::string_view unit(end, static_cast<size_t>(text.data() + text.size() - end));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (!std::isfinite(value) || value < 0.0) return std::nullopt;
  return std::make_pair(value, unit);
}

template <size_t N>
std::optional<double> parse_with(std::string_view text, const std::array<UnitFactor, N>& table) {
  const auto split = split_number(text);
  if (!split) return std::nullopt;
  for (const UnitFactor& unit_factor : table) {
    if (split->second != unit_factor.unit) continue;
    const double value = split->first * unit_factor.factor / unit_factor.divisor;  // 1e308d overflows: no finite amount
    return std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
  }
  return std::nullopt;
}

constexpr double k_kibi = 1024.0;

constexpr std::array<UnitFactor, 9> k_byte_table{{
    {"B", 1.0},
    {"kB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"KiB", k_kibi},
    {"MiB", k_kibi* k_kibi},
    {"GiB", k_kibi* k_kibi* k_kibi},
    {"TiB", k_kibi* k_kibi* k_kibi* k_kibi},
}};

// Lower-case 'b' is bits: 400 Gb/s (an NDR port) is 50 GB/s.
constexpr std::array<UnitFactor, 8> k_bandwidth_table{{
    {"B/s", 1.0},
    {"MB/s", 1e6},
    {"GB/s", 1e9},
    {"TB/s", 1e12},
    {"GiB/s", k_kibi* k_kibi* k_kibi},
    {"Mb/s", 1e6 / 8.0},
    {"Gb/s", 1e9 / 8.0},
    {"Tb/s", 1e12 / 8.0},
}};

constexpr std::array<UnitFactor, 7> k_duration_table{{
    {"ns", 1.0, 1e9},
    {"us", 1.0, 1e6},
    {"ms", 1.0, 1e3},
    {"s", 1.0},
    {"min", 60.0},
    {"h", 3600.0},
    {"d", 86400.0},
}};

}  // namespace

std::optional<double> parse_bytes(std::string_view text) {
  return parse_with(text, k_byte_table);
}

std::optional<double> parse_bandwidth(std::string_view text) {
  return parse_with(text, k_bandwidth_table);
}

std::optional<double> parse_duration(std::string_view text) {
  return parse_with(text, k_duration_table);
}

std::string format_bytes_binary(double bytes) {
  constexpr std::array<const char*, 5> names{"B", "KiB", "MiB", "GiB", "TiB"};
  size_t i = 0;
  double v = bytes;
  while (std::fabs(v) >= k_kibi && i + 1 < names.size()) {
    v /= k_kibi;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, names[i]);
  return buf;
}

}  // namespace trainsim::units
