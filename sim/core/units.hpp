#pragma once
// Quantities with units, as users write them in scenario files ("450GB/s", "400Gb/s",
// "2us", "80GiB", "14d") converted once, at the boundary, to SI base units:
// bytes, seconds, bytes per second. Decimal (GB = 1e9) and binary (GiB = 2^30)
// prefixes are distinct (../shared/DESIGN.md, Conventions).

#include <optional>
#include <string>
#include <string_view>

namespace trainsim::units {

/// "80GiB", "141GB", "512MiB", "1024B" -> bytes. A unit is required.
std::optional<double> parse_bytes(std::string_view text);

/// "450GB/s", "400Gb/s" (bits), "25GiB/s" -> bytes per second. A unit is required.
std::optional<double> parse_bandwidth(std::string_view text);

/// "2us", "1.5ms", "30s", "10min", "4h", "14d" -> seconds. A unit is required.
std::optional<double> parse_duration(std::string_view text);

/// The accepted spellings, for error messages.
inline constexpr const char* k_bytes_units = "B, kB, MB, GB, TB, KiB, MiB, GiB, TiB";
inline constexpr const char* k_bandwidth_units = "B/s, MB/s, GB/s, TB/s, GiB/s, Mb/s, Gb/s, Tb/s";
inline constexpr const char* k_duration_units = "ns, us, ms, s, min, h, d";

/// 85899345920 -> "80.00 GiB"; used in human-readable tables.
std::string format_bytes_binary(double bytes);

}  // namespace trainsim::units
