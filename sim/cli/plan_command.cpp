// `trainsim plan SCENARIO [--out DIR] [--jobs N] [--top K] [--write-top K] [--json]`: which
// parallel layout to run the scenario's model, cluster and global batch with. Every split of
// the GPUs into tensor, pipeline and data parallelism, micro-batch size and schedule whose
// memory fits (with the least recomputation that makes it fit: sim/sweep/layout_search.hpp;
// keys given with --set stay fixed) is bounded from its costs alone (sim/step/step_bound.hpp),
// then simulated in order of its bound, as a sweep (resumable, in parallel: DIR/results.csv),
// until no layout left can reach the top K (sim/sweep/pruned_search.hpp; --exhaustive
// simulates every one), and ranked by throughput (plan_report.hpp). The scenario's own layout
// is simulated first, as its file says, and ranked beside them; the best layouts are written
// as scenario files (DIR/rank-1.ini, ...) that `trainsim run` takes.

#include <algorithm>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <ostream>

#include "sim/cli/cli_point_evaluator.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/jobs_option.hpp"
#include "sim/cli/plan_layouts.hpp"
#include "sim/cli/plan_report.hpp"
#include "sim/cli/scenario_compute_model.hpp"
#include "sim/cli/scenario_options.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/shell_quote.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/scenario/value_parsers.hpp"
#include "sim/step/step_bound.hpp"
#include "sim/sweep/engine_identity.hpp"
#include "sim/sweep/pruned_search.hpp"
#include "sim/sweep/step_summary.hpp"
#include "sim/sweep/sweep_run.hpp"
#include "trainsim/version.hpp"

namespace trainsim::cli {

namespace {

// The layouts to simulate, in order: the scenario's own first (always simulated, so that it
// is reported as its file says; the pruning's stop still holds, since it only counts layouts
// faster than a bound), then the searched ones by their step-time bound.
struct Ordered {
  std::vector<std::vector<std::string>> rows;
  std::vector<double> bounds;
  int own_point = -1;
  bool own_searched = false;
};

double bound_of(const sweep::SweepPoint& p, SharedComputeModels& models) {
  const Scenario layout = load_scenario(p.scenario_path, p.overrides);
  return step_time_lower_bound_s(layout, models(layout));
}

Ordered order_layouts(const std::string& path, const sweep::LayoutSearch& search, const OwnLayout& own) {
  std::vector<std::vector<std::string>> rows;
  for (const sweep::Layout& l : search.fitting) rows.push_back(l.values);
  // Points for their step-time bounds only: no fingerprint is compared.
  const sweep::SweepPlan enumerated =
      sweep::override_plan("plan", path, search.resolved_overrides, search.keys, rows, "");
  SharedComputeModels models;
  std::vector<double> bounds;
  for (const sweep::SweepPoint& p : enumerated.points) bounds.push_back(bound_of(p, models));
  Ordered o;
  if (own.values) {
    const auto it = std::find(rows.begin(), rows.end(), *own.values);
    o.own_searched = it != rows.end();
    o.own_point = 0;
    o.rows.push_back(*own.values);
    if (o.own_searched) {
      o.bounds.push_back(bounds[static_cast<size_t>(it - rows.begin())]);
    } else {
      const auto p = sweep::override_plan("plan", path, search.resolved_overrides, search.keys, {*own.values}, "");
      try {
        o.bounds.push_back(bound_of(p.points.front(), models));
      } catch (const InputError&) {
        o.bounds.push_back(0);  // refused: its point is skipped, with the rule as the reason
      }
    }
  }
  for (const size_t i : sweep::bound_order(bounds)) {
    if (own.values && rows[i] == *own.values) continue;
    o.rows.push_back(rows[i]);
    o.bounds.push_back(bounds[i]);
  }
  return o;
}

// Writes the best `count` layouts as scenario files into the plan's folder.
std::vector<std::string> write_best(const PlanReport& r, int count) {
  std::vector<std::string> written;
  for (size_t i = 0; i < r.ranked.size() && static_cast<int>(i) < count; ++i) {
    const RankedLayout& l = r.ranked[i];
    const sweep::SweepPoint& p = r.plan->points[l.point];
    const std::string path = ranked_scenario_path(r.out_dir, static_cast<int>(i) + 1);
    char numbers[256];
    std::snprintf(numbers, sizeof numbers, "step %.4f s, %.0f tokens/s, MFU %.1f %%, peak %s of %s a GPU", l.step_time_s,
                  l.tokens_per_s, 100 * l.mfu, units::format_bytes_binary(l.peak_memory_bytes).c_str(),
                  units::format_bytes_binary(l.peak_memory_bytes + l.headroom_bytes).c_str());
    std::string given;
    for (const std::string& o : r.overrides) given += " --set " + shell_quoted(o);
    write_layout_scenario(path, r.scenario_path, layout_overrides(r.scenario_path, r.overrides, *r.plan, p),
                          {"trainsim plan " + shell_quoted_path(r.scenario_path) + given + ": rank " + std::to_string(i + 1) + " of " +
                               std::to_string(r.ranked.size()) + " (trainsim " + k_version + ")",
                           numbers, "every key resolved; simulate it with: trainsim run " + shell_quoted_path(path)});
    written.push_back(path);
  }
  return written;
}

// --top and --write-top: an integer of at least `least`, read as text and named as given (boost's
// own parse said "the argument ('1e9') for option '--top' is invalid", without the rule).
int count_option(const boost::program_options::variables_map& vm, const char* name, int least) {
  const std::string text = vm[name].as<std::string>();
  const std::optional<long long> v = parse::integer(text);
  if (!v || *v < least || *v > 1000000)
    throw InputError("trainsim plan", std::string("--") + name, text,
                     "must be an integer from " + std::to_string(least) + " to 1000000");
  return static_cast<int>(*v);
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
        "top", po::value<std::string>()->value_name("K")->default_value("10"), "layouts listed")(
        "write-top", po::value<std::string>()->value_name("K")->default_value("1"),
        "write the best K layouts as scenario files DIR/rank-1.ini ... (0: none)")(
        "exhaustive", "simulate every fitting layout, not only those whose step-time bound can reach the top K");
    const ScenarioOptions o = parse_scenario_options("plan", args, extra);
    if (o.help) {
      out << scenario_usage("plan", summary, extra);
      return 0;
    }
    const int top = count_option(o.variables, "top", 1);
    const int write_top = count_option(o.variables, "write-top", 0);
    sweep::SweepRunOptions options;
    options.jobs = jobs_option(o.variables, "trainsim plan");
    options.out_dir = o.variables.count("out") ? o.variables["out"].as<std::string>()
                                               : std::filesystem::path(o.scenario_path).stem().string() + "-plan";
    sweep::report_progress_on_stderr(options, "plan");
    // Layouts are ranked by the step's throughput: a scenario's run-level simulation (its
    // [run] duration or step target) is left out of the plan's points.
    std::vector<std::string> overrides = o.overrides;
    overrides.insert(overrides.end(), {"run.duration=0s", "run.train_steps=0"});
    const sweep::LayoutSearch search = sweep::search_layouts(o.scenario_path, overrides);
    PlanReport report;
    report.base = &search.base;
    report.search = &search;
    report.top = top;
    report.out_dir = options.out_dir;
    report.scenario_path = o.scenario_path;
    report.overrides = o.overrides;
    // Nothing fits: said before anything is simulated or written.
    if (search.fitting.empty()) throw InputError(o.scenario_path, "", "", no_layout_fits(report));

    const OwnLayout own = own_layout(o.scenario_path, overrides, search);
    const Ordered ordered = order_layouts(o.scenario_path, search, own);
    const sweep::SweepPlan plan =
        sweep::override_plan("plan", o.scenario_path, search.resolved_overrides, search.keys, ordered.rows,
                             sweep::engine_identity());
    report.plan = &plan;
    report.bounds = ordered.bounds;
    report.own_point = ordered.own_point;
    report.own_searched = ordered.own_searched;
    report.own_refused = own.refused;
    if (!o.variables.count("exhaustive"))
      options.gate = [&](const sweep::SweepPoint& next, const std::vector<sweep::PointResult>& results) {
        return sweep::prune_gate(next, results, report.bounds, top, ordered.own_searched ? -1 : ordered.own_point);
      };
    sweep::prepare_sweep_folder(plan, options.out_dir, "trainsim plan", "--out");
    const int files = std::min<int>(write_top, static_cast<int>(plan.points.size()));
    for (int k = 1; k <= files; ++k)
      check_output_path(ranked_scenario_path(options.out_dir, k), "--write-top", {o.scenario_path});
    const sweep::SweepTally t = sweep::run_sweep(plan, options, cli_point_evaluator(false, options.out_dir));
    report.results = sweep::load_results(plan, options.out_dir);
    // The scenario's own layout, where the search did not try it, is reported beside the
    // ranking (where it would rank), not in it: the table is the search's.
    report.ranked = rank_layouts(report.results, ordered.own_searched ? -1 : ordered.own_point);
    report.pruned = t.pending;
    report.written = write_best(report, write_top);
    // The ranked layouts' caveats, not the base's: a router balance's caveat depends on the
    // layout's EP, which the base holds at its stand-in when the search opens it.
    std::cerr << caveat_lines(report, "trainsim plan: ");
    out << (o.json ? plan_json(report) : plan_table(report));
    if (report.ranked.empty()) throw InputError(o.scenario_path, "", "", no_layout_fits(report));
    return t.failed > 0 ? 1 : 0;
  };
  return c;
}

}  // namespace trainsim::cli
