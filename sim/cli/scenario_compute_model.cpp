#include "sim/cli/scenario_compute_model.hpp"

#include <filesystem>

#include "sim/compute/compute_model_factory.hpp"
#include "sim/compute/launch_gap_compute_model.hpp"

namespace trainsim::cli {

namespace {

CalibrationChoice scenario_calibration(const Scenario& s) {
  CalibrationChoice choice = calibration_choice(s.cluster.calibration, TRAINSIM_CALIBRATION_DIR, s.source);
  if (choice.mode == CalibrationMode::file) {
    const std::filesystem::path table(choice.table_path);
    if (table.is_relative()) choice.table_path = (std::filesystem::path(s.source).parent_path() / table).string();
  }
  return choice;
}

}  // namespace

std::vector<std::string> scenario_input_files(const Scenario& s) {
  const CalibrationChoice choice = scenario_calibration(s);
  std::vector<std::string> files = {s.source};
  if (choice.mode == CalibrationMode::file) files.push_back(choice.table_path);
  if (choice.mode == CalibrationMode::automatic && !choice.directory.empty())
    files.push_back(calibration_table_path(choice.directory, s.cluster.gpu.table_gpu()));
  return files;
}

std::unique_ptr<ComputeModel> scenario_compute_model(const Scenario& s) {
  const CalibrationChoice choice = scenario_calibration(s);
  auto kernels = make_compute_model(s.cluster.gpu, s.training.precision, choice);
  if (s.training.kernel_gap_s <= 0) return kernels;
  return std::make_unique<LaunchGapComputeModel>(std::move(kernels), s.training.kernel_gap_s);
}

}  // namespace trainsim::cli
