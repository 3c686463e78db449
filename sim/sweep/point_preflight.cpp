#include "sim/sweep/point_preflight.hpp"

#include <algorithm>
#include <optional>

#include "sim/core/error.hpp"
#include "sim/scenario/ini_reader.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/sweep/sweep_file_terms.hpp"

namespace trainsim::sweep {

void require_a_valid_point(const SweepSpec& spec, const SweepPlan& plan) {
  // The base is read once; each point is its entries with the point's overrides, as
  // load_scenario(path, overrides) builds them.
  const std::vector<IniEntry> base = read_ini_file(spec.base_path);
  std::optional<InputError> first;
  for (const SweepPoint& point : plan.points) {
    std::vector<IniEntry> entries = base;
    for (const std::string& text : point.overrides) {
      IniEntry o = parse_override(text);
      std::erase_if(entries, [&](const IniEntry& e) { return e.name == o.name; });
      entries.push_back(std::move(o));
    }
    try {
      load_scenario(entries, spec.base_path);
      return;
    } catch (const InputError& e) {
      if (!first) first = e;
    }
  }
  if (!first) return;  // no points
  const std::string where = first->file() == "--set" ? std::string() : " in " + first->file();
  throw InputError(spec.source, sweep_key(spec, first->key()), first->value(),
                   first->rule() + where + " (so every one of the " + std::to_string(plan.points.size()) +
                       " points is invalid)");
}

}  // namespace trainsim::sweep
