#pragma once
// cluster.fabric_calibration: the collectives inside one NVLink domain and across domains as
// the user measured them with nccl-tests (topologies/fabric_calibration.hpp, written by `trainsim calibrate
// --from-nccl-tests`), by the file's path relative to the scenario's folder; none: the
// built-in measurements (topologies/protocol_efficiency.cpp).

#include <string>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_fields.hpp"

namespace trainsim {

ScenarioField fabric_calibration_field();

/// The calibration at `path` (relative paths taken from the current folder), for a cluster of
/// `gpu`: an InputError naming `source`, `key` and the path when the file was measured on
/// another GPU (its bandwidths are that GPU's NVLink), or naming the file, line and rule when
/// it breaks the format.
std::shared_ptr<const FabricCalibration> load_fabric_calibration(const std::string& path, const std::string& gpu,
                                                                 const std::string& source, const std::string& key);

/// The scenario's calibration, once its cluster is known: measured on the cluster's GPU.
void check_fabric_calibration(const Scenario& s);

}  // namespace trainsim
