#pragma once
// The scenario schema: every key a scenario file may set, how its text becomes a value
// of the Scenario, and how the value is written back (for `trainsim check --resolved`).
// Adding a key is adding one entry to its section's list, in scenario_fields_<section>.cpp
// (scenario_sections.hpp), where the section's rules across keys live too.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace trainsim {

struct ScenarioField {
  std::string name;  ///< "section.key"
  std::string help;
  /// Lower runs first: presets (0) are applied before the keys that override them.
  int priority = 2;
  /// Stores the value; returns the violated rule ("expected an integer >= 1") if the
  /// text is not acceptable.
  std::function<std::optional<std::string>(Scenario&, std::string_view)> apply;
  std::function<std::string(const Scenario&)> show;

  std::string section() const { return name.substr(0, name.find('.')); }
  std::string key() const { return name.substr(name.find('.') + 1); }
};

/// All keys, grouped by section in the order scenarios/README.md documents them.
std::vector<ScenarioField> scenario_fields();

/// Sections with keys, and sections reserved for later versions (no keys accepted yet).
std::vector<std::string> scenario_sections();
std::vector<std::string> reserved_sections();

}  // namespace trainsim
