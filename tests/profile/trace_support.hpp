#pragma once
// The checked-in profiler traces (tests/data/profiles/README.md) and helpers to read and
// rewrite them, independently of sim/profile (zlib and nlohmann-json directly).

#include <nlohmann/json.hpp>
#include <string>

namespace trainsim::testing {

/// tests/data/profiles/<name>.
std::string profile_path(const std::string& name);

/// The A100 trace, one step of HolisticTraceAnalysis' trace_diff control trace.
std::string control_trace();

/// A gzip file's decompressed text (zlib's gzread).
std::string gunzip_file(const std::string& path);

/// The control trace, parsed.
nlohmann::json control_trace_json();

/// A table's text without its date_utc and tool lines (they name the run, not the data).
std::string without_run_lines(const std::string& table);

}  // namespace trainsim::testing
