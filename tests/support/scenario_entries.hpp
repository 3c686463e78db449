#pragma once
// Scenario keys given in code, as if read from "test.ini": entries({{"model.preset", "llama3-8b"}})
// for load_scenario (tests/scenario/).

#include <initializer_list>
#include <utility>
#include <vector>

#include "sim/scenario/ini_reader.hpp"

namespace trainsim::testing {

inline std::vector<IniEntry> entries(std::initializer_list<std::pair<const char*, const char*>> kv) {
  std::vector<IniEntry> e;
  for (const auto& [k, v] : kv) e.push_back({k, v, "test.ini"});
  return e;
}

}  // namespace trainsim::testing
