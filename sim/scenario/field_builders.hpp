#pragma once
// Builders of scenario keys shared by the schema's files (scenario_fields.cpp,
// token_drop_fields.cpp): a key's parse-and-store and its text, from an accessor
// `[](auto& s) -> auto& { return s.x.y; }` usable on both a Scenario and a const Scenario.

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "sim/scenario/scenario_fields.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim::field_builders {

using Rule = std::optional<std::string>;

inline std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
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

}  // namespace trainsim::field_builders
