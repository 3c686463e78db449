#pragma once
// The points of a sweep or batch, in their fixed order, and the manifest that stores them
// in the output folder (so that `trainsim sweep --merge DIR` needs nothing else).
//
// A point is one scenario file plus overrides. Its fingerprint hashes the scenario file's
// contents, the overrides and what computes them (engine_identity.hpp: the executable and its
// data folder): a point file is reused on a rerun only when the fingerprint matches, so
// editing the base scenario or the sweep file, or another build, recomputes what changed.

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/sweep/sweep_spec.hpp"

namespace trainsim::sweep {

struct SweepPoint {
  int index = 0;                       ///< position in the sweep's order, from 0
  std::string scenario_path;           ///< the scenario file
  std::vector<std::string> values;     ///< one per SweepPlan::parameter_names
  std::vector<std::string> overrides;  ///< "section.key=value": fixed ones, then the varied ones
  std::string fingerprint;             ///< 16 hex digits (FNV-1a 64)
};

struct SweepPlan {
  std::string source;                        ///< the sweep file, or "batch"
  std::vector<std::string> parameter_names;  ///< the varied keys ("scenario" for a batch)
  std::vector<SweepPoint> points;
};

/// How many points `spec` has, without building them (SIZE_MAX when it overflows).
std::size_t point_count(const SweepSpec& spec);

/// Every point of `spec`: the cross product (first parameter slowest) or the zip, each
/// fingerprinted with `engine` (what computes them: engine_identity() in the commands).
/// Throws InputError if the base scenario cannot be read.
SweepPlan sweep_plan(const SweepSpec& spec, const std::string& engine);

/// One point per scenario file, each with `overrides` (from --set), fingerprinted with
/// `engine`. Throws InputError for a scenario file that cannot be read.
SweepPlan batch_plan(const std::vector<std::string>& scenario_paths, const std::vector<std::string>& overrides,
                     const std::string& engine);

/// One point per row of `rows` (values of `parameter_names`, set as key=value after
/// `overrides`) on `scenario_path`, fingerprinted with `engine`; `source` names the plan
/// (e.g. "plan").
SweepPlan override_plan(const std::string& source, const std::string& scenario_path,
                        const std::vector<std::string>& overrides, const std::vector<std::string>& parameter_names,
                        const std::vector<std::vector<std::string>>& rows, const std::string& engine);

/// The plan of a run that also writes traces: every fingerprint changes, so points computed
/// without a trace are redone rather than reused.
SweepPlan with_traces(SweepPlan plan);

/// FNV-1a 64 (fnv1a.hpp) of the scenario file's bytes, the overrides and `engine`
/// (engine_identity()), as 16 hex digits.
std::string point_fingerprint(const std::string& scenario_text, const std::vector<std::string>& overrides,
                              const std::string& engine);

/// The manifest (JSON) and back. parse_plan throws trainsim::Error naming `origin` when
/// the text is not a manifest.
std::string plan_json(const SweepPlan& plan);
SweepPlan parse_plan(const std::string& text, const std::string& origin);

/// The `source` of the manifest at `path`, read from its start only (plan_json writes it first;
/// a million points' manifest is some 400 MB, and parsing it whole took gigabytes); nullopt when
/// there is no plain file there or it does not start as a manifest.
std::optional<std::string> manifest_source(const std::string& path);

}  // namespace trainsim::sweep
