#pragma once
// The compute model a scenario asks for (cluster.calibration), with the shipped tables'
// folder and relative table paths resolved against the scenario file's folder.

#include <memory>

#include "sim/compute/compute_model.hpp"
#include "sim/scenario/scenario.hpp"

namespace trainsim::cli {

/// The kernels' model, plus training.kernel_gap per kernel launched when it is > 0.
/// Throws InputError naming the scenario file and cluster.calibration for a missing or
/// malformed table.
std::unique_ptr<ComputeModel> scenario_compute_model(const Scenario& scenario);

}  // namespace trainsim::cli
