#pragma once
// A number printed with a printf format, for the commands' tables.

#include <string>

namespace trainsim::cli {

/// `value` printed with `format` (one printf conversion of a double, e.g. "%.2f h"), whole
/// however long; a value of 1e15 or more prints a `%f` conversion as `%e` ("2.78e+296 h"),
/// keeping the unit that follows.
std::string formatted(const char* format, double value);

}  // namespace trainsim::cli
