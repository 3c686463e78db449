#pragma once
// A number printed with a printf format, for the commands' tables.

#include <string>

namespace trainsim::cli {

/// `value` printed with `format` (one printf conversion of a double, e.g. "%.4f").
std::string formatted(const char* format, double value);

}  // namespace trainsim::cli
