#pragma once
// The fit behind `trainsim calibrate --from-nccl-tests`: each collective's bus bandwidth and
// latency (topologies/fabric_calibration.hpp's model) from the rows of its nccl-tests logs,
// by least squares (Eigen) on the relative error of the time, so that a 1 KiB row counts as
// much as a 1 GiB one. The terms are those the rows can tell apart: the bus bandwidth always;
// a fixed latency with two sizes or more; a per-step latency when logs of two group sizes or
// more are given (steps(n) separates it from the fixed part). A term that would come out
// negative is left out (every subset of terms is solved and the best non-negative one kept).
//
// Logs whose ranks span NVLink domains (place_in_domains: multi-node nccl-tests) are fitted
// into the scale-out tier, given the in-domain one: the steps inside the domains are paid at
// the in-domain per-step latency of the tier fitted from the in-domain logs given beside them
// (0 without: the file stands alone, whatever the built-in model becomes), and the fixed
// latency, the per-step latency between domains (with logs of two domain counts or more) and
// the bus bandwidth are fitted as above.

#include <string>
#include <vector>

#include "sim/profile/nccl_tests_log.hpp"
#include "topologies/fabric_calibration.hpp"

namespace trainsim::profile {

/// The calibration of every collective the logs hold, by tier, for `gpu` (a GPU preset's
/// name). Throws InputError naming a log when its collective's times do not grow with the
/// bytes it moves (no bandwidth to fit), or when logs of one collective across domains have
/// unequal GPUs per domain.
FabricCalibration fit_nccl_tests_logs(const std::vector<NcclTestsLog>& logs, const std::string& gpu);

/// The fit beside the logs' figures, nccl-tests style: per log a header line (collective,
/// ranks, the fitted bandwidth and latencies), then per size the measured busbw, the fitted
/// busbw and the error (fitted / measured - 1 of busbw, from the times). `line_rate_Bps`: the
/// NVLink line rate per direction the efficiency is stated against.
std::string nccl_tests_fit_table(const std::vector<NcclTestsLog>& logs, const FabricCalibration& calibration,
                                 double line_rate_Bps);

/// The largest |error| of the table above, as a fraction.
double nccl_tests_fit_worst_error(const std::vector<NcclTestsLog>& logs, const FabricCalibration& calibration);

}  // namespace trainsim::profile
