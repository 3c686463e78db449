#pragma once
// The values a sweep gives one scenario key, from its text in the sweep file:
//   8,16,32            a list (values are passed on as written, units included)
//   8,16,32,...,2048   a list whose "..." continues the arithmetic or geometric progression
//                      of the three terms before it, up to the term after it; it may go
//                      down (512,256,128,...,16)
//   8..2048 x2         a geometric range (each value times 2), both ends included when hit
//   512..16 x0.5       one going down (a factor below 1)
//   1..8 +1            an arithmetic range (100..10 +-10 goes down)
//   1ms..16ms x2       ranges keep a unit written on both ends; ends in different duration
//   10min..4h x2       units are converted to seconds ("600s", "1200s", ...)

#include <string>
#include <vector>

namespace trainsim::sweep {

/// Expands `text`, the value of `key` in `file`. Throws InputError(file, key, text, rule)
/// for an empty item, a malformed range or progression, or more than 100,000 values.
std::vector<std::string> expand_values(const std::string& file, const std::string& key, const std::string& text);

}  // namespace trainsim::sweep
