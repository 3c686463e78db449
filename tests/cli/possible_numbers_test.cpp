// Numbers stay possible (issue 54), through the real executable: a calibration table faster
// than its GPU's datasheet peak is refused where a run loads it, before any MFU above 100 % is
// printed; a checkpoint interval or an MTBF spelled as a huge number overflows no integer and
// prints with its unit; every shipped table passes the peaks of the GPUs that load it; and the
// last check before output (sim/core/checked_output.hpp) stops what cannot be.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/compute/calibration_peaks.hpp"
#include "sim/compute/calibration_table.hpp"
#include "sim/compute/compute_model_factory.hpp"
#include "sim/core/checked_output.hpp"
#include "support/run_trainsim.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;
using testing::source_path;

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The shipped H100 SXM table with every kernel 10 times faster than measured: its GEMMs then
// run at up to 8 times the H100's dense bf16 peak, and their bytes at up to 11 times its HBM bandwidth.
std::string ten_times_faster_h100_table() {
  std::ifstream in(source_path("kernels/calibration/h100-sxm.csv"));
  std::ostringstream out;
  std::string line;
  bool rows = false;
  while (std::getline(in, line)) {
    if (rows && !line.empty() && line[0] != '#') {
      std::vector<std::string> f;
      std::stringstream fields(line);
      for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
      char time[32];
      std::snprintf(time, sizeof time, "%.9g", std::stod(f[6]) / 10);
      f[6] = time;
      line.clear();
      for (const std::string& x : f) line += (line.empty() ? "" : ",") + x;
    }
    if (line.rfind("kernel,dtype", 0) == 0) rows = true;
    out << line << "\n";
  }
  return out.str();
}

TEST(PossibleNumbers, RunRefusesATableFasterThanTheGpusPeak) {
  const std::string table = testing::write_temp_file("fast-h100.csv", ten_times_faster_h100_table());
  const auto r = run_trainsim({"run", source_path("scenarios/default.ini"), "--set", "cluster.calibration=" + table});
  EXPECT_EQ(r.exit_code, 2) << r.out;  // bad input, refused before the output check (exit 1) is reached
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err), 1U) << r.err;
  EXPECT_EQ(r.err.rfind("trainsim: " + table + ": line ", 0), 0U) << r.err;
  // The first row refused is a GEMM whose bytes move at twice the HBM bandwidth.
  EXPECT_NE(r.err.find(" (gemm, bf16) = '7326.18 GB/s': faster than the datasheet HBM bandwidth of h100-sxm, 3350 "
                       "GB/s (topologies/presets/gpus/), by more than 25 %"),
            std::string::npos)
      << r.err;
}

TEST(PossibleNumbers, EveryShippedTablePassesThePeaksOfItsGpus) {
  for (const std::string& name : gpu_preset_names()) {
    const GpuSpec gpu = *gpu_preset(name);
    const std::string path = calibration_table_path(source_path("kernels/calibration"), gpu.table_gpu());
    EXPECT_NO_THROW(check_calibration_peaks(read_calibration_table(path), gpu)) << name;
  }
}

// The "run" object of the default scenario's --json with run.duration = 2d and `more` set.
nlohmann::json run_of(const std::vector<std::string>& more) {
  std::vector<std::string> args{"run", source_path("scenarios/default.ini"), "--json", "--set", "run.duration=2d"};
  for (const std::string& m : more) args.insert(args.end(), {"--set", m});
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out)["run"];
}

TEST(PossibleNumbers, AHugeCheckpointIntervalIsNoCheckpointInTheRun) {
  // 1e30 s is 1e28 steps: no checkpoint in two days, as with none at all. A double that large
  // converted to a step count used to overflow (to the minimum long long, then 1): a
  // checkpoint every step.
  const nlohmann::json huge = run_of({"failures.mtbf=30d", "checkpoint.interval=1e30s"});
  const nlohmann::json never = run_of({"failures.mtbf=30d", "checkpoint.interval=0s"});
  EXPECT_EQ(huge["checkpoints_written"], 0);
  EXPECT_EQ(huge["effective_training_time_ratio"], never["effective_training_time_ratio"]);
  EXPECT_EQ(huge["steps_completed"], never["steps_completed"]);
}

TEST(PossibleNumbers, AHugeMtbfPrintsItsMttiWithAUnit) {
  // Daly's interval for an MTTI of 1e304 s is 1e153 s: as above, no checkpoint in the run.
  const nlohmann::json run = run_of({"failures.mtbf=1e300d"});
  EXPECT_EQ(run["checkpoints_written"], 0);
  EXPECT_EQ(run["failures"], 0);
  EXPECT_DOUBLE_EQ(run["effective_training_time_ratio"].get<double>(),
                   run_of({"checkpoint.interval=0s"})["effective_training_time_ratio"].get<double>());
  const auto table = run_trainsim({"run", source_path("scenarios/default.ini"), "--set", "run.duration=2d", "--set",
                                   "failures.mtbf=1e300d"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  // 8.64e304 s over 8 nodes, in hours; the unit kept.
  EXPECT_NE(table.out.find("0 failures (MTTI 3.00e+300 h)"), std::string::npos) << table.out;
}

TEST(PossibleNumbers, ImpossibleResultsAreInternalErrors) {
  EXPECT_EQ(checked_output("mfu", 0.55), 0.55);
  EXPECT_EQ(checked_output("hfu", 1.0), 1.0);
  EXPECT_EQ(checked_output("bubble_fraction", 0.0), 0.0);
  EXPECT_EQ(checked_output("breakdown_idle_s", 0.0), 0.0);
  EXPECT_EQ(checked_output("mfu_full_attention", 1.2), 1.2);  // credits work not done: may pass 1
  EXPECT_EQ(checked_output("tokens_per_s", 1e9), 1e9);
  for (const auto& [quantity, value] : std::vector<std::pair<std::string, double>>{
           {"mfu", 1.0000001}, {"hfu", -0.1}, {"exposed_comm_fraction", std::nan("")},
           {"effective_training_time_ratio", 2}, {"breakdown_idle_s", -1e-9}, {"mtti_s", std::numeric_limits<double>::infinity()}}) {
    try {
      checked_output(quantity, value);
      ADD_FAILURE() << quantity << " = " << value << " passed";
    } catch (const std::logic_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("impossible result: " + quantity + " = ", 0), 0U) << e.what();
    }
  }
}

}  // namespace
}  // namespace trainsim
