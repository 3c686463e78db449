#include "sim/cli/plan_report.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/cli/json_output.hpp"
#include "sim/core/shell_quote.hpp"
#include "sim/scenario/accuracy_caveats.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/sweep/result_columns.hpp"
#include "sim/sweep/step_summary.hpp"

namespace trainsim::cli {

namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

// The value of layout key `key` in a point's values; "" if the search did not set it.
const std::string& value_of(const sweep::SweepPlan& plan, const sweep::SweepPoint& p, const std::string& key) {
  static const std::string none;
  const auto& keys = plan.parameter_names;
  const auto it = std::find(keys.begin(), keys.end(), key);
  return it == keys.end() ? none : p.values[static_cast<size_t>(it - keys.begin())];
}

bool searched(const sweep::LayoutSearch& search, const std::string& key) {
  return std::find(search.searched.begin(), search.searched.end(), key) != search.searched.end();
}

std::string short_key(const std::string& key) {
  return key.substr(key.find('.') + 1);
}

std::string joined(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : separator) + s;
  return out;
}

// The plan_open_keys() the search kept, with the base's values: "cp 1", "zero 1" (ep only for
// a mixture of experts; virtual stages are always searched with the interleaved schedule).
std::vector<std::pair<std::string, std::string>> kept_keys(const PlanReport& r) {
  const Scenario& s = *r.base;
  std::vector<std::pair<std::string, std::string>> kept;
  const auto keep = [&](const char* key, int value) {
    if (!searched(*r.search, key)) kept.push_back({key, std::to_string(value)});
  };
  keep("parallel.cp", s.parallel.cp);
  if (s.model.is_moe()) keep("parallel.ep", s.parallel.ep);
  keep("parallel.zero", s.parallel.zero);
  return kept;
}

// "(cp 1, zero 1 kept; pp 3 fixed by --set; searched: parallel.zero)", naming only what applies.
std::string kept_text(const PlanReport& r) {
  std::vector<std::string> parts;
  std::vector<std::string> kept, fixed;
  for (const auto& [key, value] : kept_keys(r)) kept.push_back(short_key(key) + " " + value);
  for (const auto& [key, value] : r.search->fixed) fixed.push_back(short_key(key) + " " + value);
  if (!kept.empty()) parts.push_back(joined(kept) + " kept");
  if (!fixed.empty()) parts.push_back(joined(fixed) + " fixed by --set");
  if (!r.search->searched.empty()) parts.push_back("searched: " + joined(r.search->searched));
  return parts.empty() ? "" : " (" + joined(parts, "; ") + ")";
}

// The open keys searched, shown as extra columns: (key, column title).
std::vector<std::pair<std::string, std::string>> searched_columns(const sweep::LayoutSearch& search) {
  std::vector<std::pair<std::string, std::string>> columns;
  for (const char* key : {"parallel.cp", "parallel.ep", "parallel.zero"})
    if (searched(search, key)) columns.push_back({key, short_key(key)});
  return columns;
}

// Searched layouts simulated: the points not left out, less the scenario's own where it was added.
int simulated(const PlanReport& r) {
  const int own_added = r.own_point >= 0 && !r.own_searched ? 1 : 0;
  return static_cast<int>(r.plan->points.size()) - r.pruned - own_added;
}

// Searched layouts simulated over the GPU's memory (the estimate let them in).
int do_not_fit(const PlanReport& r) {
  int n = 0;
  for (size_t i = 0; i < r.results.size(); ++i)
    if (r.results[i].status == sweep::PointStatus::does_not_fit && (r.own_searched || static_cast<int>(i) != r.own_point))
      ++n;
  return n;
}

// "tp 8, pp 4, dp 2, ...": a point's layout in its keys.
std::string layout_text(const sweep::SweepPlan& plan, const sweep::SweepPoint& p) {
  std::vector<std::string> parts;
  for (size_t k = 0; k < plan.parameter_names.size(); ++k)
    parts.push_back(short_key(plan.parameter_names[k]) + " " + p.values[k]);
  return joined(parts);
}

// The rank (from 1) of point `point` among the ranked layouts; 0 when it is not ranked.
int rank_of(const PlanReport& r, int point) {
  for (size_t i = 0; i < r.ranked.size(); ++i)
    if (static_cast<int>(r.ranked[i].point) == point) return static_cast<int>(i) + 1;
  return 0;
}

// Where the scenario's own layout, simulated beside the search, would rank among its layouts
// by throughput (from 1).
int would_rank(const PlanReport& r) {
  const double own = sweep::metric_value(r.results[static_cast<size_t>(r.own_point)], "tokens_per_s");
  return 1 + static_cast<int>(std::count_if(r.ranked.begin(), r.ranked.end(),
                                            [&](const RankedLayout& l) { return l.tokens_per_s >= own; }));
}

// What became of the scenario's own layout, simulated as its file says.
std::string own_text(const PlanReport& r) {
  if (r.own_point < 0) return "the scenario's own layout is refused: " + r.own_refused + "\n";
  const sweep::SweepPoint& p = r.plan->points[static_cast<size_t>(r.own_point)];
  const sweep::PointResult& res = r.results[static_cast<size_t>(r.own_point)];
  std::ostringstream out;
  out << "the scenario's own layout (" << layout_text(*r.plan, p) << "): ";
  char step[64];
  std::snprintf(step, sizeof step, "%.4f s a step", sweep::metric_value(res, "step_time_s"));
  if (res.status == sweep::PointStatus::ok && r.own_searched)
    out << step << ", rank " << rank_of(r, r.own_point) << " of " << r.ranked.size();
  else if (res.status == sweep::PointStatus::ok)
    out << step << ", would rank " << would_rank(r) << " beside the " << r.ranked.size()
        << " ranked (not a layout the search tries: " << (r.search->fixed.empty() ? "" : "fixed keys, ")
        << "its own recomputation or schedule)";
  else if (res.status == sweep::PointStatus::does_not_fit)
    out << "does not fit: " << res.reason << " (" << step << " if it did)";
  else if (res.status == sweep::PointStatus::skipped)
    out << "refused: " << res.reason;
  else
    out << sweep::status_name(res.status) << (res.reason.empty() ? "" : ": " + res.reason);
  return out.str() + "\n";
}

std::string column_header(const sweep::LayoutSearch& search) {
  char line[256];
  std::string out;
  std::snprintf(line, sizeof line, "%4s %4s %4s %5s", "rank", "tp", "pp", "dp");
  out += line;
  for (const auto& column : searched_columns(search)) {
    std::snprintf(line, sizeof line, " %4s", column.second.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, " %4s %5s  %-14s %-9s %9s %11s %6s %6s %8s %8s %8s\n", "mb", "accum", "schedule",
                "recompute", "step_s", "tokens/s", "mfu", "bubble", "exp.comm", "mem GiB", "free GiB");
  return out + line;
}

std::string row(const PlanReport& r, size_t i) {
  const sweep::SweepPlan& plan = *r.plan;
  const RankedLayout& l = r.ranked[i];
  const sweep::SweepPoint& p = plan.points[l.point];
  const std::string schedule = value_of(plan, p, "parallel.schedule") == "interleaved"
                                   ? "interleaved x" + value_of(plan, p, "parallel.virtual_stages")
                                   : value_of(plan, p, "parallel.schedule");
  char line[256];
  std::string out;
  std::snprintf(line, sizeof line, "%4zu %4s %4s %5s", i + 1, value_of(plan, p, "parallel.tp").c_str(),
                value_of(plan, p, "parallel.pp").c_str(), value_of(plan, p, "parallel.dp").c_str());
  out += line;
  for (const auto& column : searched_columns(*r.search)) {
    std::snprintf(line, sizeof line, " %4s", value_of(plan, p, column.first).c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, " %4s %5s  %-14s %-9s %9.4f %11.0f %5.1f%% %5.1f%% %7.1f%% %8.1f %8.1f\n",
                value_of(plan, p, "training.micro_batch").c_str(), value_of(plan, p, "training.grad_accum").c_str(),
                schedule.c_str(), value_of(plan, p, "training.recompute").c_str(), l.step_time_s, l.tokens_per_s,
                100 * l.mfu, 100 * l.bubble_fraction, 100 * l.exposed_comm_fraction, l.peak_memory_bytes / k_gib,
                l.headroom_bytes / k_gib);
  return out + line;
}

// `trainsim run` of the best layout, as a line to paste: the scenario with --set of its keys.
std::string run_line(const PlanReport& r) {
  const sweep::SweepPoint& p = r.plan->points[r.ranked.front().point];
  std::string line = "trainsim run " + shell_quoted_path(r.scenario_path);
  for (const std::string& o : layout_overrides(r.scenario_path, r.overrides, *r.plan, p))
    line += " --set " + shell_quoted(o);
  return line;
}

}  // namespace

std::vector<ShownCaveat> shown_caveats(const PlanReport& r) {
  std::vector<ShownCaveat> shown;
  if (r.ranked.empty()) {
    if (const auto caveat = scenario_caveat(*r.base)) shown.push_back({*caveat, {}});
    return shown;
  }
  for (size_t i = 0; i < r.ranked.size() && static_cast<int>(i) < r.top; ++i) {
    const std::string& text = r.ranked[i].caveats;
    if (text.empty()) continue;
    auto same = std::find_if(shown.begin(), shown.end(), [&](const ShownCaveat& c) { return c.text == text; });
    if (same == shown.end()) same = shown.insert(shown.end(), ShownCaveat{text, {}});
    same->ranks.push_back(static_cast<int>(i) + 1);
  }
  return shown;
}

std::string caveat_lines(const PlanReport& r, const std::string& prefix) {
  const int rows = std::min<int>(r.top, static_cast<int>(r.ranked.size()));
  std::string out;
  for (const ShownCaveat& c : shown_caveats(r)) {
    out += prefix + "caveat";
    if (static_cast<int>(c.ranks.size()) != rows) {
      out += c.ranks.size() == 1 ? " (rank " : " (ranks ";
      for (size_t k = 0; k < c.ranks.size(); ++k) out += (k ? ", " : "") + std::to_string(c.ranks[k]);
      out += ")";
    }
    out += ": " + c.text + "\n";
  }
  return out;
}

std::string plan_table(const PlanReport& r) {
  const Scenario& s = *r.base;
  std::ostringstream out;
  const long long batch = static_cast<long long>(s.training.micro_batch) * s.training.grad_accum * s.parallel.dp;
  out << "trainsim plan: " << s.model.name << " on " << s.cluster.total_gpus() << " x " << s.cluster.gpu.name
      << ", global batch " << batch << " samples" << kept_text(r) << "\n"
      << "layouts: " << r.search->considered << " considered, " << r.search->invalid
      << " refused by the scenario rules, " << r.search->too_big << " do not fit in memory, " << simulated(r)
      << " simulated";
  if (const int n = do_not_fit(r); n > 0) out << " (" << n << " of them over the GPU's memory once simulated)";
  if (r.pruned > 0)
    out << ", " << r.pruned << " left out by their step-time bound (none can reach the top " << r.top
        << "; --exhaustive simulates them)";
  out << " (" << r.out_dir << "/results.csv)\n";
  if (r.search->batch_indivisible > 0)
    out << "left out: " << r.search->batch_indivisible
        << " splits whose micro_batch x dp does not divide the global batch\n";
  out << caveat_lines(r, "");
  out << "\n" << column_header(*r.search);
  for (size_t i = 0; i < r.ranked.size() && static_cast<int>(i) < r.top; ++i) out << row(r, i);
  out << "\nbubble: the pipeline's idle share of the step; exp.comm: communication not hidden behind compute; "
         "free GiB: the GPU's memory less the peak\n"
      << own_text(r);
  if (!r.written.empty()) {
    out << "best layout" << (r.written.size() > 1 ? "s" : "") << " as scenario files: " << joined(r.written)
        << "\nrun the best: trainsim run " << shell_quoted_path(r.written.front()) << "\n    or: " << run_line(r) << "\n";
  }
  return out.str();
}

std::string plan_json(const PlanReport& r) {
  nlohmann::ordered_json j;
  j["scenario"] = r.base->source;
  j["considered"] = r.search->considered;
  j["refused"] = r.search->invalid;
  j["too_big"] = r.search->too_big;
  j["simulated"] = simulated(r);
  j["simulated_do_not_fit"] = do_not_fit(r);
  j["pruned"] = r.pruned;
  j["batch_indivisible"] = r.search->batch_indivisible;
  j["results"] = r.out_dir + "/results.csv";
  j["validation_family"] = validation_family(*r.base).id;
  // The best layout's (what the summary recommends); each layout's own beside it.
  j["caveats"] = r.ranked.empty() ? scenario_caveat(*r.base).value_or("") : r.ranked.front().caveats;
  nlohmann::ordered_json fixed = nlohmann::ordered_json::object();
  for (const auto& [key, value] : r.search->fixed) fixed[key] = value;
  j["fixed"] = fixed;
  nlohmann::ordered_json kept = nlohmann::ordered_json::object();
  for (const auto& [key, value] : kept_keys(r)) kept[key] = value;
  j["kept"] = kept;
  nlohmann::ordered_json layouts = nlohmann::ordered_json::array();
  for (const RankedLayout& l : r.ranked) {
    const sweep::SweepPoint& p = r.plan->points[l.point];
    nlohmann::ordered_json o;
    for (size_t k = 0; k < r.plan->parameter_names.size(); ++k) o[r.plan->parameter_names[k]] = p.values[k];
    o["step_time_bound_s"] = r.bounds[l.point];
    o["tokens_per_s"] = l.tokens_per_s;
    o["step_time_s"] = l.step_time_s;
    o["mfu"] = l.mfu;
    o["bubble_fraction"] = l.bubble_fraction;
    o["exposed_comm_fraction"] = l.exposed_comm_fraction;
    o["peak_memory_bytes"] = l.peak_memory_bytes;
    o["headroom_bytes"] = l.headroom_bytes;
    o["caveats"] = l.caveats;
    layouts.push_back(o);
  }
  j["layouts"] = layouts;
  // Searched layouts simulated over the GPU's memory: after the ranked ones, never among them.
  nlohmann::ordered_json over = nlohmann::ordered_json::array();
  for (size_t i = 0; i < r.results.size(); ++i) {
    const sweep::PointResult& res = r.results[i];
    if (res.status != sweep::PointStatus::does_not_fit || (!r.own_searched && static_cast<int>(i) == r.own_point))
      continue;
    nlohmann::ordered_json o;
    for (size_t k = 0; k < r.plan->parameter_names.size(); ++k)
      o[r.plan->parameter_names[k]] = r.plan->points[i].values[k];
    o["step_time_s"] = sweep::metric_value(res, "step_time_s");
    o["peak_memory_bytes"] = sweep::metric_value(res, "peak_memory_bytes");
    o["headroom_bytes"] = sweep::headroom_bytes(res);
    over.push_back(o);
  }
  j["do_not_fit"] = over;
  nlohmann::ordered_json own;
  if (r.own_point >= 0) {
    const sweep::SweepPoint& p = r.plan->points[static_cast<size_t>(r.own_point)];
    const sweep::PointResult& res = r.results[static_cast<size_t>(r.own_point)];
    for (size_t k = 0; k < r.plan->parameter_names.size(); ++k) own[r.plan->parameter_names[k]] = p.values[k];
    own["status"] = sweep::status_name(res.status);
    own["reason"] = res.reason;
    if (res.simulated()) {
      own["step_time_s"] = sweep::metric_value(res, "step_time_s");
      own["tokens_per_s"] = sweep::metric_value(res, "tokens_per_s");
      own["peak_memory_bytes"] = sweep::metric_value(res, "peak_memory_bytes");
      own["headroom_bytes"] = sweep::headroom_bytes(res);
    }
  } else {
    own["status"] = "refused";
    own["reason"] = r.own_refused;
  }
  const bool own_ok = r.own_point >= 0 && r.results[static_cast<size_t>(r.own_point)].status == sweep::PointStatus::ok;
  own["searched"] = r.own_searched;
  j["own"] = own;
  // Its rank among the searched layouts, or where it would rank; 0 when it is not ranked.
  j["own_rank"] = !own_ok ? 0 : r.own_searched ? rank_of(r, r.own_point) : would_rank(r);
  j["scenario_files"] = r.written;
  return json_output(j);
}

std::string no_layout_fits(const PlanReport& r) {
  std::ostringstream out;
  out << "no layout fits in GPU memory (" << r.search->considered << " considered: " << r.search->invalid
      << " refused by the scenario rules, " << r.search->too_big << " too big";
  if (const int n = do_not_fit(r); n > 0) out << ", " << n << " over the GPU's memory once simulated";
  out << ")";
  std::vector<std::string> kept, fixed, widen;
  for (const auto& [key, value] : kept_keys(r)) {
    kept.push_back(short_key(key) + " " + value);
    widen.push_back("--set " + key + "=auto");
  }
  for (const auto& [key, value] : r.search->fixed) {
    fixed.push_back(short_key(key) + " " + value);
    widen.push_back("no --set " + key + "=" + value);
  }
  if (!kept.empty()) out << " with " << joined(kept) << " kept";
  if (!fixed.empty()) out << (kept.empty() ? " with " : " and ") << joined(fixed) << " fixed by --set";
  if (!widen.empty()) out << "; " << joined(widen) << " would search them";
  out << "; more GPUs, a smaller micro-batch or offload help too (trainsim memory shows where)";
  return out.str();
}

}  // namespace trainsim::cli
