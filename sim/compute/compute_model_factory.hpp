#pragma once
// Picks the compute model for a GPU type: its calibration table when there is one, else
// the datasheet roofline (whose description() says "no calibration table"). The one
// place where that choice is made.

#include <memory>
#include <string>

#include "models/training_spec.hpp"
#include "sim/compute/compute_model.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {

enum class CalibrationMode {
  automatic,  ///< <directory>/<gpu name>.csv if it exists, else the datasheet roofline
  none,       ///< the datasheet roofline
  file,       ///< the table at `table_path`, which must exist
};

struct CalibrationChoice {
  CalibrationMode mode = CalibrationMode::automatic;
  std::string table_path;  ///< for `file`
  std::string directory;   ///< for `automatic`: the tables' folder (the data folder's calibration/)
  /// For `automatic`: how results name `directory` ("<data>/calibration"), so that they are
  /// the same wherever the data folder lies; empty: `directory` itself.
  std::string shown_directory;
};

/// The choice a scenario value names: "auto" (automatic, tables in `directory`), "none",
/// or anything else as the path of a table (`file`; relative paths are the caller's to
/// resolve). Throws InputError(file, key, value, rule) for an empty value.
CalibrationChoice calibration_choice(const std::string& value, const std::string& directory,
                                     const std::string& file = "", const std::string& key = "cluster.calibration");

/// `<directory>/<gpu_name>.csv`, e.g. kernels/calibration/h200.csv.
std::string calibration_table_path(const std::string& directory, const std::string& gpu_name);

/// The compute model for `gpu` training in `precision`. Ops the table does not cover, and
/// every op without a table, are timed by datasheet_roofline(gpu, precision).
/// Throws InputError for a `file` table that is missing or malformed, or an automatic one
/// that exists but is malformed, and for a row faster than `gpu`'s datasheet peaks
/// (check_calibration_peaks, calibration_peaks.hpp).
std::unique_ptr<ComputeModel> make_compute_model(const GpuSpec& gpu, Precision precision,
                                                 const CalibrationChoice& choice);

}  // namespace trainsim
