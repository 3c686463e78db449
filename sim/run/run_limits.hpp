#pragma once
// How much a run-level simulation may do, so that any accepted scenario runs in bounded time
// and memory (issue 19: a 1,000,000-day run grew to 18 GB; failures.mtbf = 1s over 3 days ran
// for minutes).

#include <cstddef>

namespace trainsim {

/// Events a run may be expected to simulate: checkpoints, interruptions and maintenance stops.
/// Measured here at about 45,000 a second (the 54-day Llama 3 405B example stretched to 5,400
/// days: 410,000 events in 9 s), so a million take about 20 s on one core; the 54-day example
/// itself has 4,100. A run expected to need more is refused, naming the key that causes it.
inline constexpr double k_max_run_events = 1e6;

/// Interruption and checkpoint records kept for the trace's /failures and /checkpoints (and
/// --json): the first this many of each. Past them only the counts grow (RunResult's
/// failures, checkpoints_written, ...), so memory does not grow with the run's length.
inline constexpr std::size_t k_max_run_records = 100000;

/// The longest run: 100 years, where a step target without a duration stops too; it keeps
/// step counts (steps of a millisecond) far inside a long long.
inline constexpr double k_max_run_duration_s = 100 * 365.25 * 86400;

}  // namespace trainsim
