#include "sim/cli/scenario_compute_model.hpp"

#include <filesystem>

#include "sim/compute/compute_model_factory.hpp"
#include "sim/compute/launch_gap_compute_model.hpp"

namespace trainsim::cli {

std::unique_ptr<ComputeModel> scenario_compute_model(const Scenario& s) {
  CalibrationChoice choice = calibration_choice(s.cluster.calibration, TRAINSIM_CALIBRATION_DIR, s.source);
  if (choice.mode == CalibrationMode::file) {
    const std::filesystem::path table(choice.table_path);
    if (table.is_relative()) choice.table_path = (std::filesystem::path(s.source).parent_path() / table).string();
  }
  auto kernels = make_compute_model(s.cluster.gpu, s.training.precision, choice);
  if (s.training.kernel_gap_s <= 0) return kernels;
  return std::make_unique<LaunchGapComputeModel>(std::move(kernels), s.training.kernel_gap_s);
}

}  // namespace trainsim::cli
