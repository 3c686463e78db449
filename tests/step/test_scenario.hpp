#pragma once
// Scenarios for step tests, written as `section.key = value` settings.

#include <string>
#include <utility>
#include <vector>

#include "sim/scenario/scenario_loader.hpp"

namespace trainsim::testing {

using Settings = std::vector<std::pair<std::string, std::string>>;

/// `settings` with `extra` applied on top (a key in both takes extra's value), loaded and
/// validated as a scenario named "test".
inline Scenario scenario(Settings settings, const Settings& extra = {}) {
  for (const auto& kv : extra) {
    bool replaced = false;
    for (auto& s : settings) {
      if (s.first == kv.first) {
        s.second = kv.second;
        replaced = true;
      }
    }
    if (!replaced) settings.push_back(kv);
  }
  std::vector<IniEntry> entries;
  for (const auto& [k, v] : settings) entries.push_back({k, v, "test"});
  return load_scenario(entries, "test");
}

}  // namespace trainsim::testing
