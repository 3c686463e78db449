#include "sim/sweep/sweep_spec.hpp"

#include <filesystem>
#include <optional>
#include <set>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/core/nearest_name.hpp"
#include "sim/scenario/ini_reader.hpp"
#include "sim/scenario/scenario_fields.hpp"
#include "sim/sweep/value_list.hpp"

namespace trainsim::sweep {

namespace {

std::string suggestion(const std::string& name, const std::vector<std::string>& candidates) {
  const auto nearest = nearest_name(name, candidates);
  return nearest ? "; did you mean '" + *nearest + "'?" : std::string();
}

// The scenario schema, built once (it is fixed).
const std::vector<ScenarioField>& fields() {
  static const std::vector<ScenarioField> all = scenario_fields();
  return all;
}

// The scenario key must exist, or every point would be skipped for the same typo.
void check_scenario_key(const std::string& file, const std::string& entry, const std::string& key,
                        const std::string& value) {
  std::vector<std::string> names;
  for (const ScenarioField& f : fields()) {
    if (f.name == key) return;
    names.push_back(f.name);
  }
  throw InputError(file, entry, value, "unknown scenario key '" + key + "'" + suggestion(key, names));
}

// A value the key cannot take whatever the other keys (not a number, not a preset's name)
// would make every point of the sweep that uses it invalid: an error in the sweep file.
void check_scenario_values(const std::string& file, const std::string& entry, const std::string& key,
                           const std::vector<std::string>& values) {
  Scenario scratch;
  for (const ScenarioField& f : fields()) {
    if (f.name != key) continue;
    for (const std::string& v : values)
      if (const auto rule = f.apply(scratch, v)) throw InputError(file, entry, v, *rule);
    return;
  }
}

}  // namespace

SweepSpec read_sweep_file(const std::string& path) {
  return sweep_spec_from(read_ini_file(path), path);
}

SweepSpec sweep_spec_from(const std::vector<IniEntry>& entries, const std::string& path) {
  SweepSpec spec;
  spec.source = path;
  for (const IniEntry& e : entries) {
    const auto dot = e.name.find('.');
    const std::string section = dot == std::string::npos ? std::string() : e.name.substr(0, dot);
    const std::string key = dot == std::string::npos ? e.name : e.name.substr(dot + 1);
    if (section == "sweep") {
      if (key == "base") {
        if (e.value.empty()) throw InputError(path, e.name, e.value, "expected the base scenario's path");
        const std::filesystem::path base(e.value);
        spec.base_path = base.is_absolute()
                             ? base.string()
                             : (std::filesystem::path(path).parent_path() / base).lexically_normal().string();
      } else if (key == "mode") {
        if (e.value != "cross" && e.value != "zip") throw InputError(path, e.name, e.value, "expected cross or zip");
        spec.mode = e.value == "zip" ? SweepMode::zip : SweepMode::cross;
      } else {
        throw InputError(path, e.name, e.value, "unknown key in [sweep]" + suggestion(key, {"base", "mode"}));
      }
    } else if (section == "vary") {
      check_scenario_key(path, e.name, key, e.value);
      spec.parameters.push_back({key, expand_values(path, e.name, e.value)});
      check_scenario_values(path, e.name, key, spec.parameters.back().values);
    } else if (section == "set") {
      check_scenario_key(path, e.name, key, e.value);
      check_scenario_values(path, e.name, key, {e.value});
      spec.fixed_overrides.push_back(key + "=" + e.value);
    } else {
      throw InputError(path, e.name, e.value,
                       "unknown section '" + section + "'" + suggestion(section, {"sweep", "vary", "set"}) +
                           " (a sweep file has [sweep], [vary] and [set])");
    }
  }
  if (spec.base_path.empty()) throw InputError(path, "sweep.base", "", "required: the base scenario");
  // With an error code: a name too long for the file system is "does not exist", not an
  // exception out of the reader (found by tests/fuzz).
  std::error_code ec;
  if (!std::filesystem::is_regular_file(spec.base_path, ec))
    throw InputError(path, "sweep.base", spec.base_path, "the base scenario does not exist");
  if (spec.parameters.empty()) throw InputError(path, "vary", "", "required: at least one key to vary in [vary]");
  for (const std::string& fixed : spec.fixed_overrides) {
    const std::string key = fixed.substr(0, fixed.find('='));
    for (const SweepParameter& p : spec.parameters)
      if (p.key == key)
        throw InputError(path, "set." + key, fixed.substr(fixed.find('=') + 1), "the key is also in [vary]");
  }
  // training.global_batch and grad_accum give one batch two ways (sim/scenario/scenario_loader.cpp):
  // a sweep that gives both would set every point's batch twice.
  const auto given = [&](const std::string& key) -> std::optional<std::pair<std::string, std::string>> {
    for (const SweepParameter& p : spec.parameters)
      if (p.key == key) return std::pair<std::string, std::string>{"vary." + key, p.values.front()};
    for (const std::string& fixed : spec.fixed_overrides)
      if (fixed.substr(0, fixed.find('=')) == key)
        return std::pair<std::string, std::string>{"set." + key, fixed.substr(fixed.find('=') + 1)};
    return std::nullopt;
  };
  if (const auto batch = given("training.global_batch"); batch && given("training.grad_accum"))
    throw InputError(path, batch->first, batch->second,
                     "the sweep also gives training.grad_accum (" + given("training.grad_accum")->first +
                         "): both give the batch, grad_accum = global_batch / (micro_batch x dp); keep one");
  // Cross: a value listed twice gives every point with it twice, each computed again (zip pairs
  // values by position, where one may repeat).
  if (spec.mode == SweepMode::cross)
    for (const SweepParameter& p : spec.parameters) {
      std::set<std::string> seen;  // a key may hold up to a million values: not pairwise
      for (const std::string& v : p.values)
        if (!seen.insert(v).second)
          throw InputError(path, "vary." + p.key, v,
                           "listed twice: each value of a key once (mode = cross would compute its points twice)");
    }
  if (spec.mode == SweepMode::zip) {
    for (const SweepParameter& p : spec.parameters)
      if (p.values.size() != spec.parameters.front().values.size())
        throw InputError(path, "vary." + p.key, std::to_string(p.values.size()) + " values",
                         "mode = zip needs lists of one length (vary." + spec.parameters.front().key + " has " +
                             std::to_string(spec.parameters.front().values.size()) + ")");
  }
  return spec;
}

}  // namespace trainsim::sweep
