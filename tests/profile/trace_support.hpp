#pragma once
// The real profiler traces (third-party: ../shared/data/profiles/, see its README.md) and
// helpers to read and rewrite them, independently of sim/profile (zlib and nlohmann-json
// directly). A test that reads one starts with TRAINSIM_SKIP_WITHOUT(path): it is skipped
// where the shared data is absent. Format rules are tested on generated traces instead
// (kineto_fixture.hpp).

#include <nlohmann/json.hpp>
#include <string>

#include "support/shared_data.hpp"

namespace trainsim::testing {

/// <shared data>/profiles/<name>.
std::string profile_path(const std::string& name);

/// The A100 trace, one step of HolisticTraceAnalysis' trace_diff control trace.
std::string control_trace();

/// The control trace, parsed.
nlohmann::json control_trace_json();

/// A table's text without its date_utc and tool lines (they name the run, not the data).
std::string without_run_lines(const std::string& table);

}  // namespace trainsim::testing
