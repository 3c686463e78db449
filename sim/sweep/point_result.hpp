#pragma once
// What one sweep point produced, as stored in its point file (points/NNNNNN.json):
// ok with every summary metric, does_not_fit (simulated, every metric, but its peak memory
// passes the GPU's: the reason says by how much; never ranked among the layouts that fit),
// skipped (the scenario is invalid: the reason is the InputError's one line), failed (the
// simulation threw or its process died), or pending.

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace trainsim::sweep {

enum class PointStatus { pending, ok, does_not_fit, skipped, failed };

/// "pending", "ok", "does_not_fit", "skipped", "failed".
std::string status_name(PointStatus status);

struct PointResult {
  int index = 0;
  std::string fingerprint;  ///< the point's (SweepPoint::fingerprint) when it was computed
  PointStatus status = PointStatus::pending;
  std::string reason;           ///< why skipped or failed; empty when ok
  std::vector<double> metrics;  ///< summary_metric_names() order when simulated (ok, does_not_fit), else empty
  /// The GPU's memory, beside the metrics' peak_memory_bytes (sim/step/memory_fit.hpp); NaN
  /// when unknown (not simulated, or an evaluator that does not say).
  double capacity_bytes = std::numeric_limits<double>::quiet_NaN();
  std::string trace;            ///< path of the point's trace, empty when none was written
  /// The scenario's validation family and its accuracy caveat (sim/scenario/accuracy_caveats.hpp)
  /// when ok; the caveat is empty where the family's published runs are within 10 %.
  std::string validation_family;
  std::string caveats;

  /// Whether the point was simulated and has every metric.
  bool simulated() const { return status == PointStatus::ok || status == PointStatus::does_not_fit; }
  /// ok, does_not_fit and skipped points are complete: a rerun reuses them. Failed points are retried.
  bool complete() const { return simulated() || status == PointStatus::skipped; }
};

/// The distinct caveats of `results`, each once, in the order of the points: what a sweep or
/// batch says on stderr beside its table.
std::vector<std::string> distinct_caveats(const std::vector<PointResult>& results);

/// The point file's text (JSON).
std::string point_result_json(const PointResult& r);

/// The point file read back; nothing if the text is not a whole point file with every
/// metric (a file from an older build, or damaged).
std::optional<PointResult> parse_point_result(const std::string& text);

/// The path of point `index`'s file in `points_dir`: points_dir/000042.json.
std::string point_file_path(const std::string& points_dir, int index);

}  // namespace trainsim::sweep
