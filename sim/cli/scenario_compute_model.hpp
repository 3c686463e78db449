#pragma once
// The compute model a scenario asks for (cluster.calibration): `auto` from the data folder's
// tables (data_folder.hpp), relative table paths resolved against the scenario file's folder.

#include <memory>
#include <string>
#include <vector>

#include "sim/compute/compute_model.hpp"
#include "sim/scenario/scenario.hpp"

namespace trainsim::cli {

/// The kernels' model, plus training.kernel_gap per kernel launched when it is > 0.
/// Throws InputError naming the scenario file and cluster.calibration for a missing or
/// malformed table, `auto`'s included when the build ships one for the GPU type.
std::unique_ptr<ComputeModel> scenario_compute_model(const Scenario& scenario);

/// Compute models kept for scenarios that differ only in what the model does not read (their
/// parallel layout, their batch): `trainsim plan` bounds hundreds of layouts of one scenario,
/// and each model reads and fits its calibration table (a third of the bounds' time). A
/// scenario gets the model built for an earlier one with the same file, cluster, precisions
/// and kernel gap (everything scenario_compute_model reads); the models hold no state that
/// their answers depend on, so each answers as its own would.
class SharedComputeModels {
 public:
  const ComputeModel& operator()(const Scenario& scenario);

 private:
  struct Entry {
    std::string source;
    ClusterSpec cluster;
    Precision precision;
    Precision attention_precision;
    double kernel_gap_s;
    std::unique_ptr<ComputeModel> model;
  };
  std::vector<Entry> models_;
};

/// The files a scenario is read from: the scenario file, the files its keys read
/// (Scenario::read_files), the calibration table it uses (named, or the shipped one `auto`
/// picks) and its neighbour's scenario with the files that reads, for check_output_path's inputs.
std::vector<std::string> scenario_input_files(const Scenario& scenario);

}  // namespace trainsim::cli
