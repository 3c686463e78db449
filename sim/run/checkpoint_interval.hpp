#pragma once
// The optimum checkpoint interval, given the time a checkpoint costs and the mean time
// between interruptions (public.md E4).

namespace trainsim {

/// Young, "A First Order Approximation to the Optimum Checkpoint Interval":
/// tau = sqrt(2 delta M), seconds, for checkpoint cost `delta_s` and mean time to interrupt `mtti_s`.
double young_interval_s(double delta_s, double mtti_s);

/// Daly, "A Higher Order Estimate of the Optimum Checkpoint Interval for Restart Dumps"
/// (eq. 37): for delta < 2M, sqrt(2 delta M) [1 + (1/3) sqrt(delta / 2M) + (1/9)(delta / 2M)]
/// - delta; else M. Seconds.
double daly_interval_s(double delta_s, double mtti_s);

}  // namespace trainsim
