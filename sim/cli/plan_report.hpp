#pragma once
// What `trainsim plan` prints: the ranked layouts with why each is as fast as it is (pipeline
// bubble, exposed communication, memory headroom), the scenario's own layout beside them, and
// the scenario files written for the best ones; or, when no layout fits, the one line that
// says which keys were kept and how to search them.

#include <string>
#include <vector>

#include "sim/cli/plan_layouts.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/sweep/layout_search.hpp"
#include "sim/sweep/point_result.hpp"
#include "sim/sweep/sweep_plan.hpp"

namespace trainsim::cli {

struct PlanReport {
  const Scenario* base = nullptr;  ///< the search's base (model, cluster, global batch)
  const sweep::LayoutSearch* search = nullptr;
  const sweep::SweepPlan* plan = nullptr;
  std::vector<sweep::PointResult> results;  ///< by plan point
  std::vector<double> bounds;               ///< step-time bound by plan point
  std::vector<RankedLayout> ranked;         ///< rank_layouts(results)
  int own_point = -1;                       ///< the scenario's own layout's point, or -1
  bool own_searched = false;                ///< it is one of the search's layouts (else added)
  std::string own_refused;                  ///< why the scenario's own layout does not load
  int top = 10;
  int pruned = 0;  ///< layouts its bound left out
  std::string out_dir;
  std::vector<std::string> written;  ///< scenario files of the best layouts, rank order
  std::string scenario_path;
  std::vector<std::string> overrides;  ///< the user's --set
};

/// The accuracy caveats of the layouts the table shows (the top `top`), each once with the
/// ranks (from 1) it applies to, in rank order; the base scenario's when none is ranked.
struct ShownCaveat {
  std::string text;
  std::vector<int> ranks;
};
std::vector<ShownCaveat> shown_caveats(const PlanReport& r);

/// One line a caveat: "caveat: TEXT" when every shown layout carries it, else
/// "caveat (ranks 1, 3): TEXT"; each ends in a line end.
std::string caveat_lines(const PlanReport& r, const std::string& prefix);

/// The table (the default output).
std::string plan_table(const PlanReport& r);

/// The same as JSON (--json).
std::string plan_json(const PlanReport& r);

/// Why no layout fits, in one line: the counts, the keys the search kept and those --set fixed,
/// and the `--set KEY=auto` (or the --set to drop) that would search them.
std::string no_layout_fits(const PlanReport& r);

}  // namespace trainsim::cli
