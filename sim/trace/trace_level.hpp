#pragma once
// How much a trace holds (`trainsim run --trace-level`).

#include <string>

namespace trainsim {

/// summary: /, /summary, /memory. steps: those and /steps. events: those and /events.
/// Every level writes every group and dataset; a dataset a level leaves out has zero rows.
enum class TraceLevel { summary, steps, events };

/// Parses "summary", "steps" or "events". Throws InputError naming `option` otherwise.
TraceLevel parse_trace_level(const std::string& text, const std::string& option);

/// The level's name, as parse_trace_level reads it.
std::string to_string(TraceLevel level);

}  // namespace trainsim
