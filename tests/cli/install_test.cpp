// `cmake --install` and the data folder (sim/core/data_folder.hpp, README.md "Install"): an
// install tree moved to another folder gives the build tree's numbers, output for output,
// with no compiled-in path to fall back on; a binary without its data refuses
// `cluster.calibration = auto` in one line instead of timing by the datasheet roofline.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

// Installs the build tree into `root`/first, then moves it to `root`/moved/elsewhere (the
// first prefix is gone); returns the moved prefix.
fs::path install_and_move(const fs::path& root) {
  const fs::path first = root / "first";
  const std::string command = std::string("'") + TRAINSIM_CMAKE + "' --install '" + TRAINSIM_BUILD_DIR +
                              "' --prefix '" + first.string() + "' >'" + (root / "install.log").string() + "' 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  const fs::path moved = root / "moved" / "elsewhere";
  fs::create_directories(moved.parent_path());
  fs::rename(first, moved);
  return moved;
}

// `run --json` output without its one line that is not a result: the simulation's wall time.
std::string results_of(const std::string& json) {
  const auto at = json.find("\"sim_wall_s\"");
  if (at == std::string::npos) return json;
  const auto start = json.rfind('\n', at);
  return json.substr(0, start) + json.substr(json.find('\n', at));
}

// A run from `root`/work of the copy of scenarios/default.ini there, by `exe` under env(1)
// with `env` (-u TRAINSIM_DATA, or TRAINSIM_DATA=...).
testing::RunResult run_default(const fs::path& root, const std::string& env, const std::string& exe) {
  fs::create_directories(root / "work");
  fs::copy_file(testing::source_path("scenarios/default.ini"), root / "work" / "default.ini",
                fs::copy_options::overwrite_existing);
  return testing::run_executable("cd '" + (root / "work").string() + "' && exec env " + env + " ", exe,
                                 {"run", "default.ini", "--json"});
}

TEST(Install, AMovedInstallTreeGivesTheBuildTreesOutput) {
  const fs::path root = testing::fresh_test_dir("install");
  const fs::path prefix = install_and_move(root);
  ASSERT_TRUE(fs::exists(prefix / "bin" / "trainsim"));
  ASSERT_TRUE(fs::exists(prefix / "share" / "trainsim" / "calibration" / "h100-sxm.csv"));
  ASSERT_FALSE(fs::is_symlink(prefix / "share" / "trainsim" / "calibration"));
  ASSERT_TRUE(fs::exists(prefix / "share" / "trainsim" / "presets" / "gpus" / "h100-sxm.ini"));
  ASSERT_TRUE(fs::exists(prefix / "share" / "trainsim" / "presets" / "clusters" / "dgx-h100.ini"));
  ASSERT_TRUE(fs::exists(prefix / "share" / "trainsim" / "presets" / "models" / "llama3-70b.ini"));
  const auto built = run_default(root, "-u TRAINSIM_DATA", TRAINSIM_EXE);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const auto installed = run_default(root, "-u TRAINSIM_DATA", (prefix / "bin" / "trainsim").string());
  ASSERT_EQ(installed.exit_code, 0) << installed.err;
  // The same bytes: the same step, and nothing that names where either binary lies.
  EXPECT_EQ(results_of(installed.out), results_of(built.out));
  EXPECT_NE(results_of(built.out), built.out);
  EXPECT_NE(built.out.find("calibration table <data>/calibration/h100-sxm.csv"), std::string::npos) << built.out;
  EXPECT_EQ(built.out.find(TRAINSIM_SOURCE_DIR), std::string::npos) << built.out;
}

TEST(Install, ABinaryWithoutItsDataRefusesAutoAndTrainsimDataNamesIt) {
  const fs::path root = testing::fresh_test_dir("install_alone");
  const fs::path prefix = install_and_move(root);
  fs::create_directories(root / "alone");
  const fs::path alone = root / "alone" / "trainsim";
  fs::copy_file(prefix / "bin" / "trainsim", alone);

  const auto refused = run_default(root, "-u TRAINSIM_DATA", alone.string());
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  EXPECT_TRUE(refused.out.empty()) << refused.out;
  // The presets are data files of the data folder too (issue 59): without it no scenario loads.
  for (const std::string& part :
       {std::string("presets: no data folder with trainsim's GPU, cluster and model presets"),
        std::string("$TRAINSIM_DATA (unset)"), (root / "share" / "trainsim").string(),
        (root / "alone" / "share" / "trainsim").string()})
    EXPECT_NE(refused.err.find(part), std::string::npos) << part << "\n" << refused.err;

  // TRAINSIM_DATA names the data folder: the build tree's output again.
  const auto built = run_default(root, "-u TRAINSIM_DATA", TRAINSIM_EXE);
  const auto named =
      run_default(root, "TRAINSIM_DATA='" + (prefix / "share" / "trainsim").string() + "'", alone.string());
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(results_of(named.out), results_of(built.out));

  // A TRAINSIM_DATA without the table is refused, naming it; `none` asks for the roofline.
  const auto wrong = run_default(root, "TRAINSIM_DATA='" + root.string() + "'", TRAINSIM_EXE);
  EXPECT_EQ(wrong.exit_code, 2) << wrong.err;
  EXPECT_NE(wrong.err.find("$TRAINSIM_DATA (" + root.string() + ")"), std::string::npos) << wrong.err;
  const auto roofline = testing::run_executable(
      "exec env TRAINSIM_DATA='" + (prefix / "share" / "trainsim").string() + "' ", alone.string(),
                                                {"run", testing::source_path("scenarios/default.ini"), "--set",
                                                 "cluster.calibration=none"});
  EXPECT_EQ(roofline.exit_code, 0) << roofline.err;
  EXPECT_NE(roofline.out.find("no calibration table"), std::string::npos) << roofline.out;
}

}  // namespace
}  // namespace trainsim
