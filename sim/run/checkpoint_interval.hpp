#pragma once
// The optimum checkpoint interval, given the time a checkpoint costs and the mean time
// between interruptions (public.md E4).

namespace trainsim {

/// The most steps between checkpoints that checkpoint_steps gives: 2^53, the largest count a
/// double holds exactly. A longer interval checkpoints no sooner in any run trainsim simulates
/// (k_max_run_duration_s, 100 years, is 3.2e15 steps of a microsecond), so it is saturated here
/// rather than converted: a double beyond the range of long long converts to an undefined value
/// (C++20 [conv.fpint]), which made `checkpoint.interval = 1e30s` checkpoint every step.
inline constexpr double k_max_checkpoint_steps = 9007199254740992.0;

/// Steps between checkpoints for an interval of `interval_s` at `step_s` per step: the nearest
/// whole count (with `round_up`, the next one up), at least 1 and at most
/// k_max_checkpoint_steps; -1 (never) for an interval <= 0.
long long checkpoint_steps(double interval_s, double step_s, bool round_up);

/// Young, "A First Order Approximation to the Optimum Checkpoint Interval":
/// tau = sqrt(2 delta M), seconds, for checkpoint cost `delta_s` and mean time to interrupt `mtti_s`.
double young_interval_s(double delta_s, double mtti_s);

/// Daly, "A Higher Order Estimate of the Optimum Checkpoint Interval for Restart Dumps"
/// (eq. 37): for delta < 2M, sqrt(2 delta M) [1 + (1/3) sqrt(delta / 2M) + (1/9)(delta / 2M)]
/// - delta; else M. Seconds.
double daly_interval_s(double delta_s, double mtti_s);

}  // namespace trainsim
