#include "sim/compute/compute_model_factory.hpp"

#include <filesystem>
#include <utility>

#include "sim/compute/calibrated_compute_model.hpp"
#include "sim/compute/calibration_peaks.hpp"
#include "sim/compute/calibration_table.hpp"
#include "sim/compute/roofline_compute_model.hpp"
#include "sim/core/error.hpp"

namespace trainsim {

CalibrationChoice calibration_choice(const std::string& value, const std::string& directory, const std::string& file,
                                     const std::string& key) {
  if (value.empty()) throw InputError(file, key, value, "must be 'auto', 'none' or the path of a calibration table");
  if (value == "auto") return {CalibrationMode::automatic, "", directory, ""};
  if (value == "none") return {CalibrationMode::none, "", directory, ""};
  return {CalibrationMode::file, value, directory, ""};
}

std::string calibration_table_path(const std::string& directory, const std::string& gpu_name) {
  return (std::filesystem::path(directory) / (gpu_name + ".csv")).string();
}

std::unique_ptr<ComputeModel> make_compute_model(const GpuSpec& gpu, Precision precision,
                                                 const CalibrationChoice& choice) {
  const RooflineParameters roofline = datasheet_roofline(gpu, precision);
  std::string path;
  switch (choice.mode) {
    case CalibrationMode::none:
      return std::make_unique<RooflineComputeModel>(roofline);
    case CalibrationMode::file:
      path = choice.table_path;
      break;
    case CalibrationMode::automatic:
      if (choice.directory.empty()) return std::make_unique<RooflineComputeModel>(roofline);
      path = calibration_table_path(choice.directory, gpu.table_gpu());
      if (!std::filesystem::exists(path)) return std::make_unique<RooflineComputeModel>(roofline);
      break;
  }
  CalibrationTable table = read_calibration_table(path);
  check_calibration_peaks(table, gpu);
  // Checked under its real path (errors name it); described under the name results show.
  if (choice.mode == CalibrationMode::automatic && !choice.shown_directory.empty())
    table.file = calibration_table_path(choice.shown_directory, gpu.table_gpu());
  return std::make_unique<CalibratedComputeModel>(std::move(table), precision, roofline);
}

}  // namespace trainsim
