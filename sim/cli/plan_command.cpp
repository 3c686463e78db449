// `trainsim plan SCENARIO [--out DIR] [--jobs N] [--top K] [--json]`: which parallel layout
// to run the scenario's model, cluster and global batch with. Every split of the GPUs into
// tensor, pipeline and data parallelism, micro-batch size and schedule whose memory fits
// (with the least recomputation that makes it fit: sim/sweep/layout_search.hpp) is bounded
// from its costs alone (sim/step/step_bound.hpp), then simulated in order of its bound, as a
// sweep (resumable, in parallel: DIR/results.csv), until no layout left can reach the top K
// (sim/sweep/pruned_search.hpp; --exhaustive simulates every one), and ranked by throughput.

#include <algorithm>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <ostream>
#include <sstream>

#include "sim/cli/cli_point_evaluator.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/jobs_option.hpp"
#include "sim/cli/scenario_compute_model.hpp"
#include "sim/cli/scenario_options.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/accuracy_caveats.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/step/step_bound.hpp"
#include "sim/sweep/layout_search.hpp"
#include "sim/sweep/pruned_search.hpp"
#include "sim/sweep/step_summary.hpp"
#include "sim/sweep/sweep_run.hpp"

namespace trainsim::cli {

namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

// A simulated layout, for ranking.
struct Ranked {
  size_t point = 0;  ///< index into the plan
  double tokens_per_s = 0;
  double step_time_s = 0;
  double mfu = 0;
  double peak_memory_bytes = 0;
};

// The value of layout key `key` in a point's values (plan.parameter_names are the search's
// keys); "" if the search did not set it.
const std::string& value_of(const sweep::SweepPlan& plan, const sweep::SweepPoint& p, const std::string& key) {
  static const std::string none;
  const auto& keys = plan.parameter_names;
  const auto it = std::find(keys.begin(), keys.end(), key);
  return it == keys.end() ? none : p.values[static_cast<size_t>(it - keys.begin())];
}

// Fastest first; equal throughput keeps the enumeration order (deterministic).
std::vector<Ranked> rank(const std::vector<sweep::PointResult>& results) {
  std::vector<Ranked> ranked;
  for (size_t i = 0; i < results.size(); ++i) {
    const sweep::PointResult& r = results[i];
    if (r.status != sweep::PointStatus::ok) continue;
    ranked.push_back({i, sweep::metric_value(r, "tokens_per_s"), sweep::metric_value(r, "step_time_s"),
                      sweep::metric_value(r, "mfu"), sweep::metric_value(r, "peak_memory_bytes")});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Ranked& a, const Ranked& b) { return a.tokens_per_s > b.tokens_per_s; });
  return ranked;
}

// Whether point `p` is the layout `s` itself runs, matched on tp, pp, micro-batch and schedule
// (the search tries 1F1B and interleaved).
bool is_own(const Scenario& s, const sweep::SweepPlan& plan, const sweep::SweepPoint& p) {
  const std::string schedule = s.parallel.schedule == Schedule::interleaved   ? "interleaved"
                               : s.parallel.schedule == Schedule::one_f_one_b ? "1f1b"
                                                                              : "";
  return value_of(plan, p, "parallel.tp") == std::to_string(s.parallel.tp) &&
         value_of(plan, p, "parallel.pp") == std::to_string(s.parallel.pp) &&
         value_of(plan, p, "training.micro_batch") == std::to_string(s.training.micro_batch) &&
         (s.parallel.pp == 1 || value_of(plan, p, "parallel.schedule") == schedule);
}

// The rank (1-based) of the layout `s` itself runs; 0 when it is not among the simulated ones.
int own_rank(const Scenario& s, const sweep::SweepPlan& plan, const std::vector<Ranked>& ranked) {
  for (size_t i = 0; i < ranked.size(); ++i)
    if (is_own(s, plan, plan.points[ranked[i].point])) return static_cast<int>(i) + 1;
  return 0;
}

// Whether the layout `s` runs fits (it is in the plan), simulated or left out by its bound.
bool own_fits(const Scenario& s, const sweep::SweepPlan& plan) {
  return std::any_of(plan.points.begin(), plan.points.end(),
                     [&](const sweep::SweepPoint& p) { return is_own(s, plan, p); });
}

// The open keys searched, shown as extra columns: (key, column title).
std::vector<std::pair<std::string, std::string>> searched_columns(const sweep::LayoutSearch& search) {
  std::vector<std::pair<std::string, std::string>> columns;
  for (const auto& [key, title] : std::vector<std::pair<std::string, std::string>>{
           {"parallel.cp", "cp"}, {"parallel.ep", "ep"}, {"parallel.zero", "zero"}})
    if (std::find(search.searched.begin(), search.searched.end(), key) != search.searched.end())
      columns.push_back({key, title});
  return columns;
}

// "(cp 1, ep 1, zero 1 kept)", naming only what the plan did not search.
std::string kept_text(const Scenario& s, const sweep::LayoutSearch& search) {
  const auto open = [&](const char* key) {
    return std::find(search.searched.begin(), search.searched.end(), key) != search.searched.end();
  };
  std::vector<std::string> kept;
  if (!open("parallel.cp")) kept.push_back("cp " + std::to_string(s.parallel.cp));
  if (!open("parallel.ep")) kept.push_back("ep " + std::to_string(s.parallel.ep));
  if (!open("parallel.zero")) kept.push_back("zero " + std::to_string(s.parallel.zero));
  std::string text;
  for (const std::string& k : kept) text += (text.empty() ? "" : ", ") + k;
  std::string searched;
  for (const std::string& k : search.searched) searched += (searched.empty() ? "" : ", ") + k;
  if (kept.empty()) return "(searched: " + searched + ")";
  return "(" + text + " kept" + (searched.empty() ? "" : "; searched: " + searched) + ")";
}

std::string table(const Scenario& s, const sweep::LayoutSearch& search, const sweep::SweepPlan& plan,
                  const std::vector<Ranked>& ranked, int top, int pruned, const std::string& out_dir) {
  std::ostringstream out;
  char line[256];
  const long long batch = static_cast<long long>(s.training.micro_batch) * s.training.grad_accum * s.parallel.dp;
  const auto extra = searched_columns(search);
  out << "trainsim plan: " << s.model.name << " on " << s.cluster.total_gpus() << " x " << s.cluster.gpu.name
      << ", global batch " << batch << " samples " << kept_text(s, search) << "\n"
      << "layouts: " << search.considered << " considered, " << search.invalid << " refused by the scenario rules, "
      << search.too_big << " do not fit in memory, " << plan.points.size() - static_cast<size_t>(pruned)
      << " simulated";
  if (pruned > 0)
    out << ", " << pruned << " left out by their step-time bound (none can reach the top " << top
        << "; --exhaustive simulates them)";
  out << " (" << out_dir << "/results.csv)\n";
  if (search.batch_indivisible > 0)
    out << "left out: " << search.batch_indivisible << " splits whose micro_batch x dp does not divide the global batch\n";
  if (const auto caveat = accuracy_caveat(validation_family(s))) out << "caveat: " << *caveat << "\n";
  out << "\n";
  std::snprintf(line, sizeof line, "%4s %4s %4s %5s", "rank", "tp", "pp", "dp");
  out << line;
  for (const auto& column : extra) {
    std::snprintf(line, sizeof line, " %4s", column.second.c_str());
    out << line;
  }
  std::snprintf(line, sizeof line, " %4s %5s  %-14s %-9s %9s %11s %6s %8s\n", "mb", "accum", "schedule", "recompute",
                "step_s", "tokens/s", "mfu", "mem GiB");
  out << line;
  for (size_t i = 0; i < ranked.size() && static_cast<int>(i) < top; ++i) {
    const sweep::SweepPoint& p = plan.points[ranked[i].point];
    const std::string schedule = value_of(plan, p, "parallel.schedule") == "interleaved"
                                     ? "interleaved x" + value_of(plan, p, "parallel.virtual_stages")
                                     : value_of(plan, p, "parallel.schedule");
    std::snprintf(line, sizeof line, "%4zu %4s %4s %5s", i + 1, value_of(plan, p, "parallel.tp").c_str(),
                  value_of(plan, p, "parallel.pp").c_str(), value_of(plan, p, "parallel.dp").c_str());
    out << line;
    for (const auto& column : extra) {
      std::snprintf(line, sizeof line, " %4s", value_of(plan, p, column.first).c_str());
      out << line;
    }
    std::snprintf(line, sizeof line, " %4s %5s  %-14s %-9s %9.4f %11.0f %5.1f%% %8.1f\n",
                  value_of(plan, p, "training.micro_batch").c_str(), value_of(plan, p, "training.grad_accum").c_str(),
                  schedule.c_str(), value_of(plan, p, "training.recompute").c_str(), ranked[i].step_time_s,
                  ranked[i].tokens_per_s, 100 * ranked[i].mfu, ranked[i].peak_memory_bytes / k_gib);
    out << line;
  }
  if (ranked.empty()) {
    out << "no layout fits: more GPUs, a smaller micro-batch, ZeRO or offload (trainsim memory shows where)\n";
    return out.str();
  }
  const int own = own_rank(s, plan, ranked);
  out << "\nthe scenario's own split (tp " << s.parallel.tp << ", pp " << s.parallel.pp << ", micro_batch "
      << s.training.micro_batch << "), with the least recomputation that fits: "
      << (own > 0             ? "rank " + std::to_string(own) + " of " + std::to_string(ranked.size()) + " simulated"
          : own_fits(s, plan) ? "not in the top " + std::to_string(top) + " (its step-time bound left it out)"
                              : std::string("not among the simulated ones (it does not fit, or the rules refuse it)"))
      << "\n";
  return out.str();
}

std::string json(const Scenario& s, const sweep::LayoutSearch& search, const sweep::SweepPlan& plan,
                 const std::vector<Ranked>& ranked, const std::vector<double>& bounds, int pruned,
                 const std::string& out_dir) {
  nlohmann::ordered_json j;
  j["scenario"] = s.source;
  j["considered"] = search.considered;
  j["refused"] = search.invalid;
  j["too_big"] = search.too_big;
  j["simulated"] = plan.points.size() - static_cast<size_t>(pruned);
  j["pruned"] = pruned;
  j["batch_indivisible"] = search.batch_indivisible;
  j["results"] = out_dir + "/results.csv";
  nlohmann::ordered_json layouts = nlohmann::ordered_json::array();
  for (const Ranked& r : ranked) {
    const sweep::SweepPoint& p = plan.points[r.point];
    nlohmann::ordered_json o;
    for (size_t k = 0; k < plan.parameter_names.size(); ++k) o[plan.parameter_names[k]] = p.values[k];
    o["step_time_bound_s"] = bounds[r.point];
    o["tokens_per_s"] = r.tokens_per_s;
    o["step_time_s"] = r.step_time_s;
    o["mfu"] = r.mfu;
    o["peak_memory_bytes"] = r.peak_memory_bytes;
    layouts.push_back(o);
  }
  j["layouts"] = layouts;
  j["own_rank"] = own_rank(s, plan, ranked);
  j["validation_family"] = validation_family(s).id;
  j["caveats"] = accuracy_caveat(validation_family(s)).value_or("");
  return j.dump(2) + "\n";
}

}  // namespace

Command plan_command() {
  Command c;
  c.name = "plan";
  c.summary = "which parallel layout to use: every fitting split simulated and ranked by throughput";
  c.run = [summary = c.summary](const std::vector<std::string>& args, std::ostream& out) {
    namespace po = boost::program_options;
    po::options_description extra("Plan");
    extra.add_options()("out,o", po::value<std::string>()->value_name("DIR"),
                        "output folder of the simulated layouts (default: SCENARIO-plan)")(
        "jobs,j", po::value<std::string>()->value_name("N"), "layouts simulated at once (default: the core count)")(
        "top", po::value<int>()->value_name("K")->default_value(10), "layouts listed")(
        "exhaustive", "simulate every fitting layout, not only those whose step-time bound can reach the top K");
    const ScenarioOptions o = parse_scenario_options("plan", args, extra);
    if (o.help) {
      out << scenario_usage("plan", summary, extra);
      return 0;
    }
    const int top = o.variables["top"].as<int>();
    if (top < 1) throw InputError("trainsim plan", "--top", std::to_string(top), "must be at least 1");
    sweep::SweepRunOptions options;
    options.jobs = jobs_option(o.variables, "trainsim plan");
    options.out_dir = o.variables.count("out") ? o.variables["out"].as<std::string>()
                                               : std::filesystem::path(o.scenario_path).stem().string() + "-plan";
    sweep::report_progress_on_stderr(options, "plan");
    // Keys the scenario leaves open (`auto`) load at their defaults; the search varies them.
    std::vector<std::string> open;
    const Scenario s =
        sweep::load_search_base(o.scenario_path, sweep::resolve_open_keys(o.scenario_path, o.overrides, open), open);
    // Layouts are ranked by the step's throughput: a scenario's run-level simulation (its
    // [run] duration or step target) is left out of the plan's points.
    std::vector<std::string> overrides = o.overrides;
    overrides.insert(overrides.end(), {"run.duration=0s", "run.train_steps=0"});
    const sweep::LayoutSearch search = sweep::search_layouts(o.scenario_path, overrides);
    // Every layout is the scenario's model on its GPUs: one validation family, said once.
    if (const auto caveat = accuracy_caveat(validation_family(s))) std::cerr << "trainsim plan: caveat: " << *caveat << "\n";
    std::vector<std::vector<std::string>> rows;
    for (const sweep::Layout& l : search.fitting) rows.push_back(l.values);
    // Every layout's step-time bound; the layouts simulated in its order.
    const sweep::SweepPlan enumerated =
        sweep::override_plan("plan", o.scenario_path, search.resolved_overrides, search.keys, rows);
    std::vector<double> enumerated_bounds;
    for (const sweep::SweepPoint& p : enumerated.points) {
      const Scenario layout = load_scenario(p.scenario_path, p.overrides);
      enumerated_bounds.push_back(step_time_lower_bound_s(layout, *scenario_compute_model(layout)));
    }
    std::vector<std::vector<std::string>> ordered;
    std::vector<double> bounds;
    for (const size_t i : sweep::bound_order(enumerated_bounds)) {
      ordered.push_back(rows[i]);
      bounds.push_back(enumerated_bounds[i]);
    }
    const sweep::SweepPlan plan =
        sweep::override_plan("plan", o.scenario_path, search.resolved_overrides, search.keys, ordered);
    if (!o.variables.count("exhaustive"))
      options.gate = [&](const sweep::SweepPoint& next, const std::vector<sweep::PointResult>& results) {
        return sweep::prune_gate(next, results, bounds, top);
      };
    sweep::prepare_sweep_folder(plan, options.out_dir, "trainsim plan", "--out");
    const sweep::SweepTally t = sweep::run_sweep(plan, options, cli_point_evaluator(false, options.out_dir));
    const std::vector<Ranked> ranked = rank(sweep::load_results(plan, options.out_dir));
    out << (o.json ? json(s, search, plan, ranked, bounds, t.pending, options.out_dir)
                   : table(s, search, plan, ranked, top, t.pending, options.out_dir));
    return t.failed > 0 ? 1 : 0;
  };
  return c;
}

}  // namespace trainsim::cli
