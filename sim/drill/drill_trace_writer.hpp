#pragma once
// Writes a drill as HDF5 (`trainsim drill --trace FILE`; schema in analysis/SCHEMA.md,
// "Drill files"): /drill (attributes: the layout and settings), /drill/loss (every run's
// loss curve) and /drill/divergence (each run against the uninterrupted one). Written as
// sim/core/output_file.hpp writes every output (whole or not at all, devices written through);
// objects carry no modification times, so the same drill gives the same file.

#include <string>

#include "sim/drill/drill_result.hpp"

namespace trainsim::drill {

inline constexpr const char* k_drill_schema_version = "1.0";

void write_drill_trace(const std::string& path, const DrillResult& result, const std::string& scenario);

}  // namespace trainsim::drill
