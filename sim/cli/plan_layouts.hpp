#pragma once
// The layouts of `trainsim plan` as its user sees them: the simulated ones that fit, ranked;
// the scenario's own layout, with its own keys (never a searched stand-in); and a ranked
// layout as a scenario file that `trainsim run` takes as it is.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/sweep/layout_search.hpp"
#include "sim/sweep/point_result.hpp"
#include "sim/sweep/sweep_plan.hpp"

namespace trainsim::cli {

/// A simulated layout that fits (status ok), with what the plan's table shows of it.
struct RankedLayout {
  std::size_t point = 0;  ///< index into the plan
  double tokens_per_s = 0;
  double step_time_s = 0;
  double mfu = 0;
  double bubble_fraction = 0;
  double exposed_comm_fraction = 0;
  double peak_memory_bytes = 0;
  double headroom_bytes = 0;  ///< the GPU's memory less the peak
  /// Its own accuracy caveat (the point's `caveats`): layouts of one plan can differ in it,
  /// since a router balance's depends on the layout's EP (sim/scenario/router_caveat.hpp).
  std::string caveats;
};

/// The layouts that fit, fastest first (equal throughput keeps the plan's order), but point
/// `left_out` (the scenario's own layout where the search did not try it; -1: none). Layouts
/// that do not fit (does_not_fit), were refused or failed are never ranked.
std::vector<RankedLayout> rank_layouts(const std::vector<sweep::PointResult>& results, int left_out = -1);

/// `r` as ranked (RankedLayout), for a layout that fits.
RankedLayout ranked_layout(const sweep::PointResult& r, std::size_t point);

/// The scenario's own layout: the values of search.keys that the scenario file with
/// `overrides` (the search's, before open keys are resolved) itself has, as `trainsim check
/// --resolved` writes them. A key opened with `--set KEY=auto` has the file's value; one the
/// file leaves `auto` has no value of its own and takes the search's stand-in. Or the rule
/// that refuses it.
struct OwnLayout {
  std::optional<std::vector<std::string>> values;
  std::string refused;  ///< the error's line when the scenario with its overrides does not load
};
OwnLayout own_layout(const std::string& scenario_path, const std::vector<std::string>& overrides,
                     const sweep::LayoutSearch& search);

/// The overrides that make `scenario_path` point `p`'s layout in a scenario a user runs: the
/// user's overrides (open keys resolved to the layout's values), then the layout's keys; the
/// plan's own run-level keys left out, so that the scenario's [run] stays as written.
std::vector<std::string> layout_overrides(const std::string& scenario_path, const std::vector<std::string>& overrides,
                                          const sweep::SweepPlan& plan, const sweep::SweepPoint& p);

/// Where rank `rank` (from 1) is written in `out_dir`: out_dir/rank-1.ini.
std::string ranked_scenario_path(const std::string& out_dir, int rank);

/// Writes `scenario_path` with `overrides` as one scenario file, every key resolved
/// (resolved_ini), after the comment lines `header`, to `path` (temporary + rename).
void write_layout_scenario(const std::string& path, const std::string& scenario_path,
                           const std::vector<std::string>& overrides, const std::vector<std::string>& header);

}  // namespace trainsim::cli
