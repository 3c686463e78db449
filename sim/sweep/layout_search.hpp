#pragma once
// The parallel layouts worth simulating for a scenario: every split of its GPUs into tensor,
// pipeline and data parallelism, with the micro-batch sizes and pipeline schedules that
// divide the batch, each with the least activation recomputation whose memory fits
// (models/memory_budget.hpp). The scenario's context and expert parallelism, virtual stages
// and ZeRO stage are kept, unless it leaves them open (`auto`, plan_open_keys()): then they
// are searched too. A searched key given on the command line (--set parallel.pp=3) is fixed:
// the search keeps its value and varies the others around it. `trainsim plan` simulates the
// layouts (a sweep) and ranks them.

#include <string>
#include <utility>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace trainsim::sweep {

struct Layout {
  std::vector<std::string> values;  ///< one per LayoutSearch::keys
  double peak_memory_bytes = 0;     ///< the busiest stage's, with the recomputation chosen
};

struct LayoutSearch {
  /// The keys a layout sets, in this order (sweep parameter names): tp, pp, dp, sequence
  /// parallelism, micro-batch, accumulation, schedule, virtual stages, the open keys
  /// searched, then training.recompute.
  std::vector<std::string> keys;
  std::vector<std::string> searched;  ///< the scenario's open keys (`auto`), searched
  /// Keys of `keys` given as overrides (--set KEY=VALUE, not auto), in `keys` order: every
  /// layout has these values. Not dp or grad_accum: with --set they size the global batch.
  std::vector<std::pair<std::string, std::string>> fixed;
  /// The overrides given, each open key set to its default: what the base scenario (and,
  /// with a layout's values on top, each layout) loads with.
  std::vector<std::string> resolved_overrides;
  /// The scenario the layouts are searched for: its model, cluster and global batch.
  Scenario base;
  std::vector<Layout> fitting;        ///< in enumeration order
  int considered = 0;                 ///< splits and batch shapes tried
  int invalid = 0;                    ///< refused by the scenario rules (heads over tp, layers over pp, ...)
  int too_big = 0;                    ///< valid, but no recomputation (or ZeRO stage, if open) makes them fit
  /// Splits left out because micro_batch x dp does not divide the global batch (their
  /// grad_accum would not be whole); not in `considered`.
  int batch_indivisible = 0;
};

/// `overrides` with each plan-searchable key that `scenario_path` (with `overrides`) leaves
/// as `auto` set to a stand-in (cp, ep 1; virtual_stages 1, with the 1F1B schedule, since the
/// search sets both per layout; zero 0): what the base scenario loads with. `open` receives the
/// keys that were `auto`.
std::vector<std::string> resolve_open_keys(const std::string& scenario_path, const std::vector<std::string>& overrides,
                                           std::vector<std::string>& open);

/// The base scenario of a search: `scenario_path` with `resolved` (resolve_open_keys). A rule
/// broken at a key left open is reported with the value written there ('auto'), never the
/// stand-in. Throws InputError.
Scenario load_search_base(const std::string& scenario_path, const std::vector<std::string>& resolved,
                          const std::vector<std::string>& open);

/// Searches the layouts of `scenario_path` with `overrides` (--set; open keys allowed). The
/// base scenario (the global batch, the cluster) loads with the overrides but the fixed keys,
/// so that fixing pp keeps the scenario's global batch; with them too where the scenario is
/// no split of its GPUs without them. Throws InputError if the base scenario cannot be read.
LayoutSearch search_layouts(const std::string& scenario_path, const std::vector<std::string>& overrides);

}  // namespace trainsim::sweep
