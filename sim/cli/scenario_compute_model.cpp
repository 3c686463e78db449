#include "sim/cli/scenario_compute_model.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "sim/compute/calibrated_compute_model.hpp"
#include "sim/compute/compute_model_factory.hpp"
#include "sim/compute/launch_gap_compute_model.hpp"
#include "sim/core/data_folder.hpp"
#include "sim/core/error.hpp"

namespace trainsim::cli {

namespace {

// `auto`'s tables: the data folder's calibration/ (data_folder.hpp), named "<data>/calibration"
// in results. A GPU type whose table the build ships must find it: where it cannot (a binary
// copied without its data, a wrong TRAINSIM_DATA), one line names the table and every place
// looked, instead of timing the step by the datasheet roofline unasked (issue 55).
CalibrationChoice automatic_calibration(const Scenario& s, CalibrationChoice choice) {
  const DataFolder data = find_data_folder();
  choice.directory = data.path.empty() ? "" : (std::filesystem::path(data.path) / "calibration").string();
  choice.shown_directory = "<data>/calibration";
  const std::string gpu = s.cluster.gpu.table_gpu();
  const std::vector<std::string> shipped = shipped_calibration_tables();
  if (std::find(shipped.begin(), shipped.end(), gpu) == shipped.end()) return choice;
  std::error_code ec;
  if (!choice.directory.empty() && std::filesystem::exists(calibration_table_path(choice.directory, gpu), ec))
    return choice;
  const std::string looked = looked_places(data);
  throw InputError(s.source, "cluster.calibration", s.cluster.calibration,
                   "no calibration/" + gpu + ".csv, the " + gpu + " kernel table trainsim ships, in a data folder (" +
                       (data.path.empty() ? "looked in " + looked : "found " + data.path) +
                       "): install with cmake --install, set TRAINSIM_DATA to the folder holding calibration/, or "
                       "set cluster.calibration = none for the datasheet roofline");
}

CalibrationChoice scenario_calibration(const Scenario& s) {
  CalibrationChoice choice = calibration_choice(s.cluster.calibration, "", s.source);
  if (choice.mode == CalibrationMode::automatic) return automatic_calibration(s, choice);
  if (choice.mode == CalibrationMode::file) {
    const std::filesystem::path table(choice.table_path);
    if (table.is_relative()) choice.table_path = (std::filesystem::path(s.source).parent_path() / table).string();
  }
  return choice;
}

// training.attention_precision = fp8 is timed from the calibration table's fp8 attention rows
// only: cuDNN's FP8 attention runs 1.0 to 1.6 times as fast as its bf16 attention where
// measured (B200 forward 1,781 vs 1,515 TFLOP/s, backward 1,582 vs 1,180 at sequence 32K; slower
// than bf16 at sequence 1K: NVIDIA/cudnn-frontend @ 0b1577c8 benchmark/sdpa_benchmark_training/
// artifacts/sdpa_fp8_benchmark_results_NVIDIA_B200.csv), far from the datasheet's 2x, so no
// roofline stands in for rows.
void require_fp8_attention_rows(const Scenario& s, const ComputeModel& kernels) {
  if (s.training.attention_precision != Precision::fp8) return;
  const auto* table = dynamic_cast<const CalibratedComputeModel*>(&kernels);
  if (table == nullptr)
    throw InputError(s.source, "training.attention_precision", "fp8",
                     "fp8 attention is timed from a calibration table's measured fp8 attention rows; cluster.calibration "
                     "= " + s.cluster.calibration + " times by the datasheet roofline, which has no FP8 attention rate");
  if (!table->has_fp8_attention())
    throw InputError(s.source, "training.attention_precision", "fp8",
                     "the calibration table " + table->table().file +
                         " has no attention_fwd and attention_bwd rows of dtype fp8 to time fp8 attention from");
}

}  // namespace

std::vector<std::string> scenario_input_files(const Scenario& s) {
  const CalibrationChoice choice = scenario_calibration(s);
  std::vector<std::string> files = {s.source};
  files.insert(files.end(), s.read_files.begin(), s.read_files.end());
  if (choice.mode == CalibrationMode::file) files.push_back(choice.table_path);
  if (choice.mode == CalibrationMode::automatic && !choice.directory.empty())
    files.push_back(calibration_table_path(choice.directory, s.cluster.gpu.table_gpu()));
  // The neighbour job's scenario and what it reads (variations.neighbour): `run --trace N`
  // naming it wrote the trace over it, exit 0.
  if (s.neighbour) {
    const std::vector<std::string> neighbour = scenario_input_files(*s.neighbour);
    files.insert(files.end(), neighbour.begin(), neighbour.end());
  }
  return files;
}

const ComputeModel& SharedComputeModels::operator()(const Scenario& s) {
  for (const Entry& e : models_)
    if (e.source == s.source && e.cluster == s.cluster && e.precision == s.training.precision &&
        e.attention_precision == s.training.attention_precision && e.kernel_gap_s == s.training.kernel_gap_s)
      return *e.model;
  models_.push_back({s.source, s.cluster, s.training.precision, s.training.attention_precision,
                     s.training.kernel_gap_s, scenario_compute_model(s)});
  return *models_.back().model;
}

std::unique_ptr<ComputeModel> scenario_compute_model(const Scenario& s) {
  const CalibrationChoice choice = scenario_calibration(s);
  auto kernels = make_compute_model(s.cluster.gpu, s.training.precision, choice);
  require_fp8_attention_rows(s, *kernels);
  if (s.training.kernel_gap_s <= 0) return kernels;
  return std::make_unique<LaunchGapComputeModel>(std::move(kernels), s.training.kernel_gap_s);
}

}  // namespace trainsim::cli
