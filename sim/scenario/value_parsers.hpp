#pragma once
// Strict parsers for scenario values. Each returns nothing when the text is not of
// its form; the caller turns that into an InputError naming the key and the rule.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainsim::parse {

std::optional<long long> integer(std::string_view text);
std::optional<double> number(std::string_view text);
/// true/false, yes/no, on/off, 1/0
std::optional<bool> boolean(std::string_view text);
/// "5%" or "0.05"
std::optional<double> fraction(std::string_view text);
/// The pieces of a list value between any of `separators` ("tp-cp-pp-dp" at "-"), empty ones
/// kept: a viewing split into `text`, which must outlive them.
std::vector<std::string_view> pieces(std::string_view text, std::string_view separators);
/// `text` without its leading and trailing spaces (a view into `text`).
std::string_view trimmed(std::string_view text);

/// One of a fixed set of names.
template <typename Enum>
struct EnumNames {
  std::vector<std::pair<std::string, Enum>> names;

  std::optional<Enum> parse(std::string_view text) const {
    for (const auto& [name, value] : names)
      if (name == text) return value;
    return std::nullopt;
  }
  std::string name_of(Enum value) const {
    for (const auto& [name, v] : names)
      if (v == value) return name;
    return "?";
  }
  /// "one of a, b, c"
  std::string rule() const {
    std::string s = "expected one of ";
    for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i].first;
    return s;
  }
};

}  // namespace trainsim::parse
