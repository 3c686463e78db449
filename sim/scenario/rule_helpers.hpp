#pragma once
// What the rules across scenario keys share (the sections' scenario_fields_*.cpp): a number as
// their messages write it, and require(), which rejects a scenario naming the key, its value and
// the rule.

#include <cstdio>
#include <string>

#include "sim/core/error.hpp"
#include "sim/scenario/scenario.hpp"

namespace trainsim::schema {

inline std::string str(long long v) {
  return std::to_string(v);
}

inline std::string seconds(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gs", v);
  return buf;
}

inline std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// One rule: if `broken`, the scenario is rejected with `key`, `value` and `rule`.
inline void require(const Scenario& s, bool ok, const std::string& key, long long value, const std::string& rule) {
  if (!ok) throw InputError(s.source, key, str(value), rule);
}

}  // namespace trainsim::schema
