#pragma once
// The common kinds of scenario field (an integer in bounds, a number above a minimum, a boolean,
// one of a set of names, a quantity with a unit, a fraction),
// built from an accessor `[](auto& s) -> auto& { return s.x.y; }` usable on both a Scenario and
// a const Scenario: the sections' scenario_fields_*.cpp, precision_recipe.cpp and
// token_drop_fields.cpp build their keys with them.

#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/core/units.hpp"
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

// A quantity with a unit: `parser` is one of units::parse_bytes/bandwidth/duration.
// Shown in `show_unit` (one of the parser's units, with its factor).
template <typename Access>
ScenarioField quantity_field(std::string name, std::string help, Access access,
                             std::optional<double> (*parser)(std::string_view), const char* units,
                             const char* show_unit, double show_factor, bool allow_zero) {
  ScenarioField f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.apply = [access, parser, units, allow_zero](Scenario& s, std::string_view text) -> Rule {
    const auto v = parser(text);
    if (!v || (!allow_zero && *v <= 0))
      return std::string(allow_zero ? "expected a value >= 0" : "expected a value > 0") + " with a unit (" + units +
             ")";
    access(s) = *v;
    return std::nullopt;
  };
  f.show = [access, show_unit, show_factor](const Scenario& s) {
    return number_text(access(s) / show_factor) + show_unit;
  };
  return f;
}

template <typename Access>
ScenarioField bytes_field(std::string name, std::string help, Access access) {
  ScenarioField f = quantity_field(std::move(name), std::move(help), access, units::parse_bytes, units::k_bytes_units,
                                   "GiB", 1024.0 * 1024.0 * 1024.0, true);
  f.show = [access](const Scenario& s) {
    constexpr double k_mib = 1024.0 * 1024.0;
    const double bytes = access(s);
    return bytes >= 1024.0 * k_mib ? number_text(bytes / (1024.0 * k_mib)) + "GiB" : number_text(bytes / k_mib) + "MiB";
  };
  return f;
}
template <typename Access>
ScenarioField bandwidth_field(std::string name, std::string help, Access access) {
  return quantity_field(std::move(name), std::move(help), access, units::parse_bandwidth, units::k_bandwidth_units,
                        "GB/s", 1e9, false);
}
template <typename Access>
ScenarioField duration_field(std::string name, std::string help, Access access) {
  return quantity_field(std::move(name), std::move(help), access, units::parse_duration, units::k_duration_units, "s",
                        1.0, true);
}
template <typename Access>
ScenarioField latency_field(std::string name, std::string help, Access access) {
  return quantity_field(std::move(name), std::move(help), access, units::parse_duration, units::k_duration_units, "us",
                        1e-6, true);
}

// How a fraction key reads: whether 0 is allowed (a speed is not), the example its rule gives,
// and whether `show` writes it as a percentage or as the number.
struct FractionForm {
  bool zero_allowed = true;
  const char* example = "0.05 or 5%";
  bool shown_as_percent = true;
};

template <typename Access>
ScenarioField fraction_field(std::string name, std::string help, Access access, FractionForm form = {}) {
  ScenarioField f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.apply = [access, form](Scenario& s, std::string_view text) -> Rule {
    const auto v = parse::fraction(text);
    const bool low_ok = v && (form.zero_allowed ? *v >= 0 : *v > 0);
    if (!low_ok || *v > 1)
      return std::string(form.zero_allowed ? "expected a fraction from 0 to 1 (" : "expected a fraction above 0 and at most 1 (") +
             form.example + ")";
    access(s) = *v;
    return std::nullopt;
  };
  f.show = [access, form](const Scenario& s) {
    return form.shown_as_percent ? number_text(access(s) * 100) + "%" : number_text(access(s));
  };
  return f;
}

// The names a preset key accepts, as its help and rule list them.
inline std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s;
}

}  // namespace trainsim::field_kinds
