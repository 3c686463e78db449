#include "sim/cli/plan_layouts.hpp"

#include <algorithm>

#include "sim/core/comment_line.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/scenario/ini_reader.hpp"
#include "sim/scenario/scenario_fields.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/sweep/result_columns.hpp"
#include "sim/sweep/step_summary.hpp"

namespace trainsim::cli {

RankedLayout ranked_layout(const sweep::PointResult& r, std::size_t point) {
  RankedLayout l;
  l.point = point;
  l.tokens_per_s = sweep::metric_value(r, "tokens_per_s");
  l.step_time_s = sweep::metric_value(r, "step_time_s");
  l.mfu = sweep::metric_value(r, "mfu");
  l.bubble_fraction = sweep::metric_value(r, "bubble_fraction");
  l.exposed_comm_fraction = sweep::metric_value(r, "exposed_comm_fraction");
  l.peak_memory_bytes = sweep::metric_value(r, "peak_memory_bytes");
  l.headroom_bytes = sweep::headroom_bytes(r);
  l.caveats = r.caveats;
  return l;
}

std::vector<RankedLayout> rank_layouts(const std::vector<sweep::PointResult>& results, int left_out) {
  std::vector<RankedLayout> ranked;
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i].status == sweep::PointStatus::ok && static_cast<int>(i) != left_out)
      ranked.push_back(ranked_layout(results[i], i));
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const RankedLayout& a, const RankedLayout& b) { return a.tokens_per_s > b.tokens_per_s; });
  return ranked;
}

OwnLayout own_layout(const std::string& scenario_path, const std::vector<std::string>& overrides,
                     const sweep::LayoutSearch& search) {
  // `--set KEY=auto` opens a key the file may set: the file's value is the scenario's own.
  std::vector<std::string> own_overrides;
  const std::vector<IniEntry> file = read_ini_file(scenario_path);
  for (const std::string& text : overrides) {
    const IniEntry o = parse_override(text);
    const bool file_sets_it = std::any_of(file.begin(), file.end(), [&](const IniEntry& e) {
      return e.name == o.name && e.value != "auto";
    });
    if (!(o.value == "auto" && file_sets_it)) own_overrides.push_back(text);
  }
  std::vector<std::string> open;
  own_overrides = sweep::resolve_open_keys(scenario_path, own_overrides, open);
  OwnLayout own;
  Scenario s;
  try {
    s = load_scenario(scenario_path, own_overrides);
  } catch (const InputError& e) {
    own.refused = e.what();
    return own;
  }
  const std::vector<ScenarioField> fields = scenario_fields();
  std::vector<std::string> values;
  for (const std::string& key : search.keys) {
    const auto f = std::find_if(fields.begin(), fields.end(), [&](const ScenarioField& x) { return x.name == key; });
    if (f == fields.end()) throw Error("trainsim plan: no scenario key " + key);
    values.push_back(f->show(s));
  }
  own.values = values;
  return own;
}

std::vector<std::string> layout_overrides(const std::string& scenario_path, const std::vector<std::string>& overrides,
                                          const sweep::SweepPlan& plan, const sweep::SweepPoint& p) {
  std::vector<std::string> open;
  std::vector<std::string> all = sweep::resolve_open_keys(scenario_path, overrides, open);
  for (std::size_t k = 0; k < plan.parameter_names.size(); ++k) {
    const std::string& key = plan.parameter_names[k];
    // One override a key: the layout's value replaces the user's (or the stand-in of auto).
    std::erase_if(all, [&](const std::string& text) { return parse_override(text).name == key; });
    all.push_back(key + "=" + p.values[k]);
  }
  return all;
}

std::string ranked_scenario_path(const std::string& out_dir, int rank) {
  return out_dir + "/rank-" + std::to_string(rank) + ".ini";
}

void write_layout_scenario(const std::string& path, const std::string& scenario_path,
                           const std::vector<std::string>& overrides, const std::vector<std::string>& header) {
  std::string text;
  for (const std::string& line : header) text += "# " + comment_line(line) + "\n";
  text += "\n" + resolved_ini(load_scenario(scenario_path, overrides));
  write_file_atomically(path, text);
}

}  // namespace trainsim::cli
