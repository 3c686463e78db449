// `trainsim run --chakra-out DIR` writes its rank traces as a set, whole or not at all, and
// `trainsim replay` refuses a set that is not the one written (issue 54: a cut export replayed
// as a job of fewer ranks, exit 0, a different answer). Through the real executable.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "sim/core/error.hpp"
#include "sim/workload/export_folder.hpp"
#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"

namespace trainsim::workload {
namespace {

namespace fs = std::filesystem;
using trainsim::testing::run_trainsim;
using trainsim::testing::run_trainsim_after;

const std::string k_tiny = trainsim::testing::source_path("tests/trace/tiny.ini");  // 8 ranks

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

void expect_one_line_error(const testing::RunResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

testing::RunResult replay(const fs::path& dir) {
  return run_trainsim({"replay", (dir / "step").string(), "--cluster", "dgx-h100", "--nodes", "1", "--json"});
}

TEST(ExportFolder, AnExportThatFailsLeavesNoFolderAndNoTemporaries) {
  // A file-size limit of 16 KiB fails a rank's write partway (EFBIG, its signal ignored), as
  // a disk that fills up would: the ranks written before it must not appear as a smaller job.
  const fs::path dir = trainsim::testing::fresh_test_dir("export_cut");
  const fs::path out = dir / "traces";
  const auto r = run_trainsim_after("trap '' XFSZ; ulimit -f 16; exec ", {"run", k_tiny, "--chakra-out", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(fs::is_empty(dir)) << *names_in(dir).begin();
}

TEST(ExportFolder, ReplayRefusesASetThatIsNotTheOneWritten) {
  const fs::path dir = trainsim::testing::fresh_test_dir("export_changed");
  const fs::path out = dir / "traces";
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--chakra-out", out.string()}).exit_code, 0);
  EXPECT_EQ(names_in(out).size(), 10U);  // 8 ranks, the comm groups and the manifest
  ASSERT_EQ(replay(out).exit_code, 0);

  // A rank file cut short, then one missing, then one that no export wrote.
  const fs::path rank5 = out / "step.5.et";
  const auto size = fs::file_size(rank5);
  fs::copy_file(rank5, dir / "rank5");
  fs::resize_file(rank5, size / 2);
  expect_one_line_error(replay(out), rank5.string() + ": is not the file the export wrote");
  fs::remove(rank5);
  expect_one_line_error(replay(out), rank5.string() + ": missing or unreadable");
  fs::copy_file(dir / "rank5", rank5);
  ASSERT_EQ(replay(out).exit_code, 0);
  fs::copy_file(rank5, out / "step.8.et");
  expect_one_line_error(replay(out), "step.8.et: not part of the export (its manifest lists ranks 0 to 7)");
}

TEST(ExportFolder, ReplayRefusesAnExportWithGapsInItsRanks) {
  const fs::path out = trainsim::testing::fresh_test_dir("export_gaps") / "traces";
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--chakra-out", out.string(), "--ranks", "0-2,5"}).exit_code, 0);
  expect_one_line_error(replay(out), "lacks rank 3 (written with --ranks)");
}

TEST(ExportFolder, AnEarlierExportIsReplacedWhole) {
  const fs::path out = trainsim::testing::fresh_test_dir("export_again") / "traces";
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--chakra-out", out.string()}).exit_code, 0);
  // Named with a trailing slash this time: the same folder.
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--chakra-out", out.string() + "/", "--ranks", "0-1"}).exit_code, 0);
  EXPECT_EQ(names_in(out), (std::set<std::string>{"chakra-export.json", "comm_groups.json", "step.0.et", "step.1.et"}));
  EXPECT_EQ(names_in(out.parent_path()), std::set<std::string>{"traces"});  // nothing aside left
}

TEST(ExportFolder, AFolderOfTheUsersIsRefusedAndLeftAsItWas) {
  const fs::path dir = trainsim::testing::fresh_test_dir("export_users");
  std::ofstream(dir / "notes.txt") << "mine";
  std::ofstream(dir / "step.0.et") << "my own trace";
  const auto r = run_trainsim({"run", k_tiny, "--chakra-out", dir.string()});
  expect_one_line_error(r, "which no export of trainsim wrote");
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"notes.txt", "step.0.et"}));
  // An export's folder with a file the user added since is not replaced either.
  const fs::path out = dir / "traces";
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--chakra-out", out.string()}).exit_code, 0);
  std::ofstream(out / "analysis.ipynb") << "{}";
  expect_one_line_error(run_trainsim({"run", k_tiny, "--chakra-out", out.string()}), "'analysis.ipynb'");
  EXPECT_TRUE(fs::exists(out / "step.7.et"));
  // The current folder (empty or not) is never replaced: the shell in it would be left in a
  // removed folder.
  const fs::path empty = dir / "empty";
  fs::create_directories(empty);
  for (const std::string& name : std::vector<std::string>{".", "./", empty.string(), dir.string()}) {
    SCOPED_TRACE(name);
    expect_one_line_error(
        run_trainsim_after("cd '" + empty.string() + "' && exec ", {"run", k_tiny, "--chakra-out", name}),
        "is the current folder or holds it");
  }
  EXPECT_TRUE(fs::is_directory(empty));
}

// --chakra-out naming a symbolic link to a folder writes where the link points, as every file
// output does with a link; before, the link was moved aside and a folder of its name made in
// its place (the traces on the link's disk, not on the one it named).
TEST(ExportFolder, ALinkToAFolderIsFollowedAndKept) {
  const fs::path dir = trainsim::testing::fresh_test_dir("export_link");
  fs::create_directories(dir / "big");
  fs::create_directory_symlink("big", dir / "traces");
  for (const std::string ranks : {"0-1", "0-7"}) {
    SCOPED_TRACE(ranks);
    const auto r = run_trainsim({"run", k_tiny, "--chakra-out", (dir / "traces").string(), "--ranks", ranks});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(dir / "traces"));
    EXPECT_TRUE(fs::exists(dir / "big" / "step.1.et"));
    EXPECT_EQ(names_in(dir), (std::set<std::string>{"big", "traces"}));
  }
  EXPECT_TRUE(fs::exists(dir / "big" / "step.7.et"));  // the earlier export replaced by the whole one
  const auto r = replay(dir / "traces");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A file that appears in DIR while the step is simulated (the user's, another command's) is
// left where it is: the folder was checked empty before the run, and the commit finds it no
// longer is. Before, DIR was moved aside with the file in it, the new set renamed in, and the
// file stayed in a hidden folder (.trainsim-tmp.DIR.replaced...) beside DIR.
TEST(ExportFolder, AFileThatAppearedMeanwhileIsKeptAndTheSetNotWritten) {
  const fs::path dir = trainsim::testing::fresh_test_dir("export_meanwhile");
  for (const bool earlier_export : {false, true}) {
    SCOPED_TRACE(earlier_export ? "an earlier export" : "an empty folder");
    const fs::path out = dir / (earlier_export ? "again" : "empty");
    if (earlier_export)
      ASSERT_EQ(run_trainsim({"run", k_tiny, "--chakra-out", out.string(), "--ranks", "0"}).exit_code, 0);
    else
      fs::create_directories(out);
    const std::set<std::string> before = names_in(out);
    ExportFolder::check(out.string(), "trainsim run", "--chakra-out");
    ExportFolder folder(out.string());
    folder.add_rank(0, {}, 1);
    std::ofstream(out / "notes.txt") << "mine";
    EXPECT_THROW(folder.commit(), OutputError);
    std::set<std::string> expected = before;
    expected.insert("notes.txt");
    EXPECT_EQ(names_in(out), expected);
  }
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"again", "empty"}));  // nothing hidden aside
}

}  // namespace
}  // namespace trainsim::workload
