#pragma once
// The parallel layouts worth simulating for a scenario: every split of its GPUs into tensor,
// pipeline and data parallelism (its context and expert parallelism, ZeRO stage and global
// batch kept), with the micro-batch sizes and pipeline schedules that divide the batch, each
// with the least activation recomputation whose memory fits (models/memory_budget.hpp).
// `trainsim plan` simulates them (a sweep) and ranks them.

#include <string>
#include <vector>

namespace trainsim::sweep {

/// The keys a layout sets, in this order (sweep parameter names); training.recompute last.
const std::vector<std::string>& layout_keys();

struct Layout {
  std::vector<std::string> values;  ///< one per layout_keys()
  double peak_memory_bytes = 0;     ///< the busiest stage's, with the recomputation chosen
};

struct LayoutSearch {
  std::vector<Layout> fitting;  ///< in enumeration order: tp, then pp, micro-batch, schedule
  int considered = 0;           ///< splits and batch shapes tried
  int invalid = 0;              ///< refused by the scenario rules (heads over tp, layers over pp, ...)
  int too_big = 0;              ///< valid, but no recomputation makes them fit
};

/// Searches the layouts of `scenario_path` with `overrides` (--set). Throws InputError if the
/// base scenario itself cannot be read.
LayoutSearch search_layouts(const std::string& scenario_path, const std::vector<std::string>& overrides);

}  // namespace trainsim::sweep
