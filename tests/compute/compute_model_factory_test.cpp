// How results name `auto`'s calibration table (sim/compute/compute_model_factory.hpp).

#include <gtest/gtest.h>

#include <string>

#include "sim/compute/compute_model_factory.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {
namespace {

const std::string k_tables = std::string(TRAINSIM_SOURCE_DIR) + "/kernels/calibration";

TEST(ComputeModelFactory, AutoNamesItsTableAsShownNotWhereItLies) {
  // Results name `auto`'s table relative to the data folder (sim/core/data_folder.hpp), so
  // that they are the same wherever trainsim is installed; `file` tables keep their path.
  CalibrationChoice choice = calibration_choice("auto", k_tables);
  choice.shown_directory = "<data>/calibration";
  const std::string d = make_compute_model(*gpu_preset("h200"), Precision::bf16, choice)->description();
  EXPECT_EQ(d.rfind("calibration table <data>/calibration/h200.csv (", 0), 0u) << d;
  EXPECT_EQ(d.find(k_tables), std::string::npos) << d;
  const CalibrationChoice file{CalibrationMode::file, k_tables + "/h200.csv", "", "<data>/calibration"};
  const std::string f = make_compute_model(*gpu_preset("h200"), Precision::bf16, file)->description();
  EXPECT_NE(f.find(k_tables + "/h200.csv"), std::string::npos) << f;
}

}  // namespace
}  // namespace trainsim
