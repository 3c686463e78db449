#pragma once
// The common kinds of scenario field (an integer in bounds, a number above a minimum, a boolean,
// one of a set of names),
// built from an accessor `[](auto& s) -> auto& { return s.x.y; }` usable on both a Scenario and
// a const Scenario: scenario_fields.cpp, precision_recipe.cpp and token_drop_fields.cpp build their
// keys with them.

#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "sim/scenario/scenario_fields.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim::field_kinds {

using Rule = std::optional<std::string>;

inline std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}


// `why` follows the bound in the message when `max` is a limit of trainsim's (not the int's).
template <typename Access>
ScenarioField int_field(std::string name, std::string help, Access access, long long min,
                        long long max = std::numeric_limits<int>::max(), std::string why = "") {
  ScenarioField f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.apply = [access, min, max, why](Scenario& s, std::string_view text) -> Rule {
    const auto v = parse::integer(text);
    // A value above the bound says what the bound is, even the int's (issue 19: 4000000000
    // got "expected an integer >= 1").
    if (!v || *v < min || *v > max) {
      if (max == std::numeric_limits<int>::max() && !(v && *v > max))
        return "expected an integer >= " + std::to_string(min);
      return "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) +
             (why.empty() ? std::string() : ": " + why);
    }
    access(s) = static_cast<std::remove_reference_t<decltype(access(s))>>(*v);
    return std::nullopt;
  };
  f.show = [access](const Scenario& s) { return std::to_string(access(s)); };
  return f;
}

template <typename Access>
ScenarioField bool_field(std::string name, std::string help, Access access) {
  ScenarioField f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.apply = [access](Scenario& s, std::string_view text) -> Rule {
    const auto v = parse::boolean(text);
    if (!v) return "expected true or false";
    access(s) = *v;
    return std::nullopt;
  };
  f.show = [access](const Scenario& s) { return std::string(access(s) ? "true" : "false"); };
  return f;
}

template <typename Enum, typename Access>
ScenarioField enum_field(std::string name, std::string help, Access access, parse::EnumNames<Enum> names) {
  ScenarioField f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.apply = [access, names](Scenario& s, std::string_view text) -> Rule {
    const auto v = names.parse(text);
    if (!v) return names.rule();
    access(s) = *v;
    return std::nullopt;
  };
  f.show = [access, names](const Scenario& s) { return names.name_of(access(s)); };
  return f;
}

template <typename Access>
ScenarioField number_field(std::string name, std::string help, Access access, double min) {
  ScenarioField f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.apply = [access, min](Scenario& s, std::string_view text) -> Rule {
    const auto v = parse::number(text);
    if (!v || *v < min) return "expected a number >= " + number_text(min);
    access(s) = *v;
    return std::nullopt;
  };
  f.show = [access](const Scenario& s) { return number_text(access(s)); };
  return f;
}

}  // namespace trainsim::field_kinds
