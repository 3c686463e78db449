// `trainsim presets` and presets of the user's own (issue 59 item 2): the shipped presets are
// listed with their sources; `model.preset = PATH` and `cluster.preset = PATH` take a file
// (whose `gpu` may itself be a GPU preset file), and a copy of a shipped preset gives the
// shipped preset's results.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "sim/scenario/preset_library.hpp"
#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

TEST(PresetsCommand, ListsEveryPresetWithItsSources) {
  const auto r = testing::run_trainsim({"presets"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const PresetLibrary& library = shipped_presets();
  for (const auto& p : library.gpus) EXPECT_NE(r.out.find("  " + p.name + "  "), std::string::npos) << p.name;
  for (const auto& p : library.clusters) EXPECT_NE(r.out.find("  " + p.name + "  "), std::string::npos) << p.name;
  for (const auto& p : library.models) EXPECT_NE(r.out.find("  " + p.name + "  "), std::string::npos) << p.name;
  EXPECT_EQ(library.gpus.size(), 8u);
  EXPECT_EQ(library.clusters.size(), 7u);
  EXPECT_EQ(library.models.size(), 11u);
  EXPECT_NE(r.out.find("source: Dubey et al. 2024"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("source_memory: "), std::string::npos) << r.out;
}

// `run`'s text without what is not a result: the wall time after "simulated in".
std::string results(const testing::RunResult& r) {
  std::string out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) out += line.substr(0, line.find("simulated in")) + "\n";
  return out;
}

TEST(PresetsCommand, UserFilesGiveTheShippedPresetsResults) {
  const fs::path dir = testing::fresh_test_dir("user_presets");
  fs::create_directories(dir / "mine");
  fs::copy_file(testing::source_path("models/presets/llama3-70b.ini"), dir / "mine" / "my-70b.ini");
  fs::copy_file(testing::source_path("topologies/presets/gpus/h100-sxm.ini"), dir / "mine" / "my-gpu.ini");
  std::ofstream(dir / "mine" / "my-gpu.ini", std::ios::app) << "kernel_table = h100-sxm\n";  // timed as the H100
  std::ifstream in(testing::source_path("topologies/presets/clusters/dgx-h100.ini"));
  std::string cluster((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  cluster.replace(cluster.find("gpu = h100-sxm"), 14, "gpu = my-gpu.ini");
  std::ofstream(dir / "mine" / "my-node.ini") << cluster;

  const std::string scenario = testing::source_path("scenarios/default.ini");
  const auto shipped = testing::run_trainsim({"run", scenario});
  ASSERT_EQ(shipped.exit_code, 0) << shipped.err;
  const auto mine =
      testing::run_trainsim({"run", scenario, "--set", "model.preset=" + (dir / "mine" / "my-70b.ini").string(),
                             "--set", "cluster.preset=" + (dir / "mine" / "my-node.ini").string()});
  ASSERT_EQ(mine.exit_code, 0) << mine.err;
  // The same step; only the names differ (the file's stem names a preset of one's own), and the
  // caveat says no published run is on a GPU of that name (sim/scenario/accuracy_caveats.hpp).
  std::string expected = results(shipped);
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"llama3-70b", "my-70b"},
                                 {"x h100-sxm", "x my-gpu"},
                                 {"dgx-h100", "my-node"},
                                 {"accuracy extrapolated: no published run in",
                                  "accuracy extrapolated: no published run on my-gpu (its family's are on h100-sxm) "
                                  "and no published run in"}})
    for (auto at = expected.find(from); at != std::string::npos; at = expected.find(from, at + to.size()))
      expected.replace(at, from.size(), to);
  EXPECT_EQ(results(mine), expected);

  // A GPU no shipped table times and no published run measures: the datasheet roofline, said
  // to be unmeasured.
  // Its architecture is one no validation family holds, and its NVLink no measured generation.
  std::ifstream h100(testing::source_path("topologies/presets/gpus/h100-sxm.ini"));
  std::string gpu((std::istreambuf_iterator<char>(h100)), std::istreambuf_iterator<char>());
  gpu.replace(gpu.find("architecture = hopper"), 21, "architecture = rubin");
  gpu.replace(gpu.find("nvlink_generation = 4"), 21, "nvlink_generation = 0");
  std::ofstream(dir / "mine" / "new-gpu.ini") << gpu;
  cluster.replace(cluster.find("gpu = my-gpu.ini"), 16, "gpu = new-gpu.ini");
  std::ofstream(dir / "mine" / "new-node.ini") << cluster;
  const auto unmeasured = testing::run_trainsim({"run", scenario, "--set", "cluster.calibration=none", "--set",
                                                 "cluster.preset=" + (dir / "mine" / "new-node.ini").string()});
  ASSERT_EQ(unmeasured.exit_code, 0) << unmeasured.err;
  EXPECT_NE((unmeasured.out + unmeasured.err).find("accuracy unmeasured"), std::string::npos) << unmeasured.out;
}

}  // namespace
}  // namespace trainsim
