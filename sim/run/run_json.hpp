#pragma once
// A RunResult as JSON: the `run` object of `trainsim run --json`, and how the child process
// that simulated the run hands its result back.

#include <nlohmann/json.hpp>

#include "sim/run/run_result.hpp"

namespace trainsim {

/// The scalar fields (for_each_run_field), and with `records` the interruption and
/// checkpoint records as arrays "interruptions" and "checkpoints".
nlohmann::ordered_json run_json(const RunResult& r, bool records);

/// The scalar fields only (the inverse of run_json(r, false)); no records.
RunResult run_from_json_scalars(const nlohmann::json& j);

/// The inverse of run_json(r, true). Throws nlohmann::json::exception on a missing key.
RunResult run_from_json(const nlohmann::json& j);

}  // namespace trainsim
