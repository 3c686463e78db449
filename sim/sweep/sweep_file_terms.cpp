#include "sim/sweep/sweep_file_terms.hpp"

#include <optional>
#include <utility>

namespace trainsim::sweep {

std::string sweep_key(const SweepSpec& spec, const std::string& key) {
  for (const std::string& fixed : spec.fixed_overrides)
    if (fixed.substr(0, fixed.find('=')) == key) return "set." + key;
  for (const SweepParameter& p : spec.parameters)
    if (p.key == key) return "vary." + key;
  return key;
}

InputError in_sweep_file_terms(const SweepSpec& spec, const InputError& e) {
  if (e.file() != "--set") return e;
  std::string rule = e.rule();
  if (rule.find(spec.base_path) == std::string::npos) rule += " (base scenario " + spec.base_path + ")";
  return InputError(spec.source, sweep_key(spec, e.key()), e.value(), rule);
}

namespace {

// The InputError a child's reason line says, when it is a --set of one of the point's
// overrides: "--set: KEY = 'VALUE': RULE" (sim/core/error.cpp's format) with the point's value.
std::optional<InputError> set_error_of(const SweepPoint& point, const std::string& reason) {
  for (const std::string& o : point.overrides) {
    const std::string key = o.substr(0, o.find('='));
    const std::string value = o.substr(o.find('=') + 1);
    const std::string head = "--set: " + key + (value.empty() ? "" : " = '" + value + "'") + ": ";
    if (reason.compare(0, head.size(), head) == 0) return InputError("--set", key, value, reason.substr(head.size()));
  }
  return std::nullopt;
}

}  // namespace

PointEvaluator naming_sweep_file_keys(const SweepSpec& spec, PointEvaluator evaluate) {
  return [spec, evaluate = std::move(evaluate)](const SweepPoint& point) {
    PointResult r;
    try {
      r = evaluate(point);
    } catch (const InputError& e) {
      throw in_sweep_file_terms(spec, e);
    }
    if (r.status == PointStatus::skipped)
      if (const auto e = set_error_of(point, r.reason)) r.reason = in_sweep_file_terms(spec, *e).what();
    return r;
  };
}

}  // namespace trainsim::sweep
