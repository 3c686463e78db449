#pragma once
// `trainsim calibrate --from-nccl-tests LOG... --cluster PRESET [--out FILE]`: the collectives
// inside one NVLink domain and across domains (multi-node logs, placed in the preset's domains
// by their '# Rank' lines) fitted to the user's nccl-tests logs (sim/profile/nccl_tests_fit.hpp),
// the fit printed beside each log's figures, and with --out the fabric calibration file
// (topologies/fabric_calibration.hpp) that a scenario names (cluster.fabric_calibration) and
// `trainsim collective --fabric-calibration FILE` takes.

#include <ostream>
#include <string>
#include <vector>

namespace trainsim::cli {

struct NcclTestsCalibration {
  std::vector<std::string> logs;
  std::string cluster;  ///< a cluster preset's name
  std::string out;      ///< empty: print the fit only
};

/// Runs it; the fit table goes to `out`. Throws InputError for a bad log (file, line, rule), a
/// missing or unknown cluster, or logs whose ranks do not sit in its NVLink domains evenly.
int calibrate_from_nccl_tests(const NcclTestsCalibration& options, std::ostream& out);

}  // namespace trainsim::cli
