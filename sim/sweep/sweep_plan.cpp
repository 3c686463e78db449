#include "sim/sweep/sweep_plan.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/scenario/ini_reader.hpp"
#include "sim/sweep/fnv1a.hpp"

namespace trainsim::sweep {

namespace {

std::string count_text(std::size_t count) {
  return count == std::numeric_limits<std::size_t>::max() ? std::string("more than 2^64") : std::to_string(count);
}

}  // namespace

std::string point_fingerprint(const std::string& scenario_text, const std::vector<std::string>& overrides,
                              const std::string& engine) {
  Fnv1a64 h;
  h.field(scenario_text);
  for (const std::string& o : overrides) h.field(o);
  h.field(engine);
  return h.hex();
}

std::size_t point_count(const SweepSpec& spec) {
  if (spec.parameters.empty()) return 0;
  if (spec.mode == SweepMode::zip) return spec.parameters.front().values.size();
  // Saturating: ten keys of 100,000 values each would overflow 64 bits.
  std::size_t count = 1;
  for (const SweepParameter& p : spec.parameters) {
    if (p.values.empty()) return 0;
    if (count > std::numeric_limits<std::size_t>::max() / p.values.size()) return std::numeric_limits<std::size_t>::max();
    count *= p.values.size();
  }
  return count;
}

SweepPlan sweep_plan(const SweepSpec& spec, const std::string& engine) {
  SweepPlan plan;
  plan.source = spec.source;
  for (const SweepParameter& p : spec.parameters) plan.parameter_names.push_back(p.key);
  const std::string text = read_ini_file_text(spec.base_path);
  const size_t n = spec.parameters.size();
  const size_t count = point_count(spec);
  if (count > 1000000)
    throw InputError(spec.source, "vary", count_text(count) + " points", "at most 1000000 points");
  for (size_t i = 0; i < count; ++i) {
    SweepPoint pt;
    pt.index = static_cast<int>(i);
    pt.scenario_path = spec.base_path;
    pt.overrides = spec.fixed_overrides;
    // Cross: i as a mixed-radix number, the last parameter the fastest digit.
    size_t rest = i;
    std::vector<size_t> pick(n, i);
    if (spec.mode == SweepMode::cross)
      for (size_t k = n; k-- > 0;) {
        pick[k] = rest % spec.parameters[k].values.size();
        rest /= spec.parameters[k].values.size();
      }
    for (size_t k = 0; k < n; ++k) {
      const std::string& v = spec.parameters[k].values[pick[k]];
      pt.values.push_back(v);
      pt.overrides.push_back(spec.parameters[k].key + "=" + v);
    }
    pt.fingerprint = point_fingerprint(text, pt.overrides, engine);
    plan.points.push_back(std::move(pt));
  }
  return plan;
}

SweepPlan override_plan(const std::string& source, const std::string& scenario_path,
                        const std::vector<std::string>& overrides, const std::vector<std::string>& parameter_names,
                        const std::vector<std::vector<std::string>>& rows, const std::string& engine) {
  const std::string text = read_ini_file_text(scenario_path);
  SweepPlan plan;
  plan.source = source;
  plan.parameter_names = parameter_names;
  for (size_t i = 0; i < rows.size(); ++i) {
    SweepPoint pt;
    pt.index = static_cast<int>(i);
    pt.scenario_path = scenario_path;
    pt.values = rows[i];
    pt.overrides = overrides;
    for (size_t k = 0; k < parameter_names.size(); ++k) pt.overrides.push_back(parameter_names[k] + "=" + rows[i][k]);
    pt.fingerprint = point_fingerprint(text, pt.overrides, engine);
    plan.points.push_back(std::move(pt));
  }
  return plan;
}

SweepPlan batch_plan(const std::vector<std::string>& scenario_paths, const std::vector<std::string>& overrides,
                     const std::string& engine) {
  SweepPlan plan;
  plan.source = "batch";
  plan.parameter_names = {"scenario"};
  for (size_t i = 0; i < scenario_paths.size(); ++i) {
    SweepPoint pt;
    pt.index = static_cast<int>(i);
    pt.scenario_path = scenario_paths[i];
    pt.values = {scenario_paths[i]};
    pt.overrides = overrides;
    pt.fingerprint = point_fingerprint(read_ini_file_text(scenario_paths[i]), overrides, engine);
    plan.points.push_back(std::move(pt));
  }
  return plan;
}

SweepPlan with_traces(SweepPlan plan) {
  for (SweepPoint& p : plan.points) p.fingerprint = point_fingerprint(p.fingerprint, {"--trace"}, "");
  return plan;
}

std::string plan_json(const SweepPlan& plan) {
  nlohmann::ordered_json j;
  j["source"] = plan.source;
  j["parameters"] = plan.parameter_names;
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const SweepPoint& p : plan.points) {
    nlohmann::ordered_json o;
    o["index"] = p.index;
    o["scenario"] = p.scenario_path;
    o["values"] = p.values;
    o["overrides"] = p.overrides;
    o["fingerprint"] = p.fingerprint;
    points.push_back(o);
  }
  j["points"] = points;
  // Paths are UTF-8 where trainsim reads them (ini_reader.cpp); U+FFFD is a safety net.
  return j.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

SweepPlan parse_plan(const std::string& text, const std::string& origin) {
  try {
    const auto j = nlohmann::json::parse(text);
    SweepPlan plan;
    plan.source = j.at("source").get<std::string>();
    plan.parameter_names = j.at("parameters").get<std::vector<std::string>>();
    for (const auto& o : j.at("points")) {
      SweepPoint p;
      p.index = o.at("index").get<int>();
      p.scenario_path = o.at("scenario").get<std::string>();
      p.values = o.at("values").get<std::vector<std::string>>();
      p.overrides = o.at("overrides").get<std::vector<std::string>>();
      p.fingerprint = o.at("fingerprint").get<std::string>();
      plan.points.push_back(std::move(p));
    }
    return plan;
  } catch (const nlohmann::json::exception& e) {
    throw Error(origin + ": not a sweep manifest: " + e.what());
  }
}

std::optional<std::string> manifest_source(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  // The source is a path (at most PATH_MAX, 4,096 bytes) written as JSON: at most 6 bytes a byte.
  constexpr std::size_t k_head_bytes = 64 * 1024;
  std::ifstream in(path, std::ios::binary);
  std::string head(k_head_bytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  const std::string key = "\"source\":";
  const std::size_t at = head.find(key);
  if (at == std::string::npos || head.find_first_not_of("{ \n") != at) return std::nullopt;
  const std::size_t open = head.find_first_not_of(' ', at + key.size());
  if (open == std::string::npos || head[open] != '"') return std::nullopt;
  for (std::size_t i = open + 1; i < head.size(); ++i) {
    if (head[i] == '\\') {
      ++i;
    } else if (head[i] == '"') {
      const auto value = nlohmann::json::parse(head.substr(open, i + 1 - open), nullptr, false);
      return value.is_string() ? std::optional<std::string>(value.get<std::string>()) : std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace trainsim::sweep
