#pragma once
// How far to trust a result: the validation family a scenario falls in, and what the
// published runs of that family say of trainsim's accuracy (issue 55 item 6). The families
// and their measured errors are one table (accuracy_caveats.cpp), the figures of
// scenarios/validation/README.md grouped by family; tests/cli/accuracy_caveats_test.cpp
// recomputes every figure from the validation scenarios and fails when one is stale, printing
// the table's rows as they should read.

#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// One family of scenarios and what its published runs measured: the throughput error of
/// each run (simulated / published - 1, in percent; positive: trainsim is too fast).
struct ValidationFamily {
  std::string id;           ///< "moe-hopper": the value of the `validation_family` outputs
  std::string description;  ///< "MoE on Hopper (H100, H200, H800)"
  int runs = 0;             ///< published runs of scenarios/validation/ in it; 0: unmeasured
  double min_error_pct = 0;
  double max_error_pct = 0;
  double mean_abs_error_pct = 0;
  /// The GPU presets its runs ran on (cluster.gpu's name), in name order, and the most GPUs
  /// one of them used: a GPU or a cluster size past these is not what the errors measure.
  std::vector<std::string> gpus;
  int max_gpus = 0;
  /// The training.precision values its runs trained in, in name order: another (NVFP4 on a
  /// B200, MXFP8 on an H100's family) is not what the errors measure either.
  std::vector<std::string> precisions;
};

/// training.precision's name, as the scenario file spells it ("bf16", "nvfp4").
std::string precision_name(Precision p);

/// A family is caveated when a published run of it is off by more than this many percent, or
/// when no published run measures it.
inline constexpr double k_caveat_threshold_pct = 10.0;

/// Every family, in the table's order.
const std::vector<ValidationFamily>& validation_families();

/// The family `s` falls in (classified from the scenario's facts: accuracy_caveats.cpp says
/// which and why).
const ValidationFamily& validation_family(const Scenario& s);

/// One line saying how far the family's published runs are off, when a run is off by more
/// than k_caveat_threshold_pct or none was measured; nothing otherwise.
std::optional<std::string> accuracy_caveat(const ValidationFamily& family);

/// What the family's runs do not cover of `s`, on one line: a GPU preset none of them ran on
/// (H200, H800, B300, GB300, one's own file), more GPUs than the largest of them, a precision
/// none of them trained in; with the
/// family's measured error range (unless accuracy_caveat says it), since that is all that is
/// known. Nothing when the family
/// has no run (accuracy_caveat says so) or covers both.
std::optional<std::string> coverage_caveat(const Scenario& s);

/// Everything a result of `s` should be read with, on one line: the family's accuracy_caveat,
/// the coverage_caveat and, for a router balance the measurements do not cover, router_balance_caveat
/// (sim/scenario/router_caveat.hpp), joined by "; "; nothing when none applies.
std::optional<std::string> scenario_caveat(const Scenario& s);

/// The family and its measured error in a few words, for a results table:
/// "dense on Hopper (H100, H200, H800): 3 published runs off by -1.8 to +2.9 %".
std::string validation_summary(const ValidationFamily& family);

}  // namespace trainsim
