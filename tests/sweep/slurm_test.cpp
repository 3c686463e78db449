// The Slurm path end to end on a real single-node Slurm (local_slurm.hpp): `trainsim sweep
// --slurm` writes the job array, sbatch runs the shards and the merge, and the merged table
// equals a local run's. Skips, with the reason, where Slurm cannot be started.
// And the text --slurm writes for its readers, with folder names that need quoting: the
// printed submit line as bash runs it (sbatch stubbed), the #SBATCH --output lines as sbatch
// reads them (sbatch_reader.hpp; and Slurm's own sbatch where it is installed).

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "local_slurm.hpp"
#include "sbatch_reader.hpp"
#include "sim/sweep/read_file.hpp"
#include "support/run_trainsim.hpp"
#include "tiny_scenario.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

TEST(SweepSlurm, JobArrayOfShardsThenMerge) {
  const std::string root = testing::write_temp_file("slurm", "");
  fs::remove_all(root);
  const testing::LocalSlurm slurm(root + "/cluster");
  if (!slurm.ready()) GTEST_SKIP() << "no local Slurm: " << slurm.why();

  const std::string base = testing::write_temp_file("tiny.ini", testing::tiny_scenario_text());
  const std::string sweep = testing::write_temp_file(
      "sweep.ini", "[sweep]\nbase = " + base + "\n[vary]\nparallel.tp = 1,2,3\ntraining.grad_accum = 1,2\n");
  const std::string dir = root + "/out", local = root + "/local";
  const auto w = testing::run_trainsim({"sweep", sweep, "--slurm", "--shards", "3", "--jobs", "1", "--out", dir});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_NE(w.out.find("6 points in 3 array tasks"), std::string::npos) << w.out;
  ASSERT_TRUE(fs::exists(dir + "/sweep.sbatch"));

  int code = 0;
  const std::string submitted = slurm.shell("sbatch --parsable '" + dir + "/sweep.sbatch'", 20, &code);
  ASSERT_EQ(code, 0) << submitted;
  // Done when the merge has written a table without pending points (at most 90 s).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  std::string csv;
  while (std::chrono::steady_clock::now() < deadline) {
    csv = sweep::read_file_or_empty(dir + "/results.csv");
    if (!csv.empty() && csv.find(",pending,") == std::string::npos && fs::exists(dir + "/slurm/merge.sbatch") &&
        slurm.shell("squeue -h", 5).empty())
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  ASSERT_FALSE(csv.empty()) << "no merged table; squeue: " << slurm.shell("squeue", 5);
  EXPECT_EQ(csv.find(",pending,"), std::string::npos) << csv;
  int merge_logs = 0, task_logs = 0;
  for (const auto& e : fs::directory_iterator(dir + "/slurm")) {
    const std::string name = e.path().filename().string();
    merge_logs += name.rfind("merge_", 0) == 0 && e.path().extension() == ".out";
    task_logs += name.rfind("merge_", 0) != 0 && e.path().extension() == ".out";
  }
  EXPECT_EQ(task_logs, 3);
  EXPECT_EQ(merge_logs, 1);

  const auto l = testing::run_trainsim({"sweep", sweep, "--jobs", "2", "--out", local});
  ASSERT_EQ(l.exit_code, 0) << l.err;
  EXPECT_EQ(csv, sweep::read_file_or_empty(local + "/results.csv"));
}

// Folder names a shell must not split or run: a space, a quote, a command substitution
// and a backquoted command (each would create `pwned` in the shell's folder if run).
const std::vector<std::string> k_shell_names = {"with space", "it's", "$(touch pwned)", "`touch pwned`"};
// Folder names sbatch's reader or its filename pattern would cut or change.
const std::vector<std::string> k_sbatch_names = {"with space", "it's", "say \"hi\"", "100%", "#7", "tab\there"};

// `trainsim sweep --slurm --out DIR` of a two-point sweep; returns its stdout.
std::string slurm_scripts_into(const std::string& dir) {
  const std::string sweep = testing::tiny_sweep_file("[vary]\nparallel.tp = 1,2\n");
  const auto w = testing::run_trainsim({"sweep", sweep, "--slurm", "--out", dir});
  EXPECT_EQ(w.exit_code, 0) << w.err;
  return w.out;
}

// The text after "submit: " on the line that starts with it.
std::string submit_line(const std::string& out) {
  const std::string prefix = "submit: ";
  const auto at = out.find(prefix);
  if (at == std::string::npos) return "";
  const auto start = at + prefix.size();
  return out.substr(start, out.find('\n', start) - start);
}

// Runs `line` in bash from `root`/cwd with a stub sbatch first on PATH that records its
// arguments, each ended by a NUL; returns the record.
std::string run_with_stub_sbatch(const std::string& line, const std::string& root) {
  fs::create_directories(root + "/stub");
  fs::create_directories(root + "/cwd");
  std::ofstream(root + "/stub/sbatch") << "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$SBATCH_RECORD\"\n";
  fs::permissions(root + "/stub/sbatch", fs::perms::owner_all, fs::perm_options::replace);
  std::ofstream(root + "/line.sh") << line << "\n";
  // `root` is a test folder of plain characters: single quotes suffice here.
  const std::string command = "cd '" + root + "/cwd' && SBATCH_RECORD='" + root + "/record' PATH='" + root +
                              "/stub':\"$PATH\" bash '" + root + "/line.sh' </dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0) << line;
  return sweep::read_file_or_empty(root + "/record");
}

TEST(SweepSlurm, SubmitLineGivesSbatchTheExactPathAndRunsNothing) {
  const std::string root = testing::fresh_dir("submit");
  for (const std::string& name : k_shell_names) {
    SCOPED_TRACE(name);
    const std::string dir = root + "/" + name;
    const std::string line = submit_line(slurm_scripts_into(dir));
    ASSERT_FALSE(line.empty());
    const std::string record = run_with_stub_sbatch(line, root);
    EXPECT_EQ(record, dir + "/sweep.sbatch" + std::string(1, '\0')) << line;
    EXPECT_FALSE(fs::exists(root + "/cwd/pwned")) << line << " ran a command";
    fs::remove(root + "/cwd/pwned");
    fs::remove(root + "/record");
  }
  // A plain folder stays readable: no quotes.
  const std::string plain = root + "/plain-1.x";
  EXPECT_EQ(submit_line(slurm_scripts_into(plain)), "sbatch " + plain + "/sweep.sbatch");
}

// The --output argument of `script`'s #SBATCH lines, as sbatch reads them.
std::string output_pattern(const std::string& script) {
  std::istringstream lines(script);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("#SBATCH", 0) == 0)
      for (const std::string& a : testing::sbatch_arguments(line.substr(7)))
        if (a.rfind("--output=", 0) == 0) return a.substr(9);
  return "";
}

TEST(SweepSlurm, OutputLinesCarryTheWholeFolderAsSbatchReadsThem) {
  const std::string root = testing::fresh_dir("sbatch_output");
  for (const std::string& name : k_sbatch_names) {
    SCOPED_TRACE(name);
    const std::string dir = root + "/" + name;
    slurm_scripts_into(dir);
    const std::string array = sweep::read_file_or_empty(dir + "/sweep.sbatch");
    const std::string merge = sweep::read_file_or_empty(dir + "/slurm/merge.sbatch");
    // Job 77, task 3 of the array; job 78 the merge.
    EXPECT_EQ(testing::expand_sbatch_pattern(output_pattern(array), {{'A', "77"}, {'a', "3"}}), dir + "/slurm/77_3.out")
        << array;
    EXPECT_EQ(testing::expand_sbatch_pattern(output_pattern(merge), {{'j', "78"}}), dir + "/slurm/merge_78.out")
        << merge;
    // Slurm's own reader, where installed, cuts the lines the same way.
    const auto sbatch_read = testing::arguments_sbatch_reads(dir + "/sweep.sbatch", root + "/conf");
    if (sbatch_read) {
      std::istringstream lines(array);
      std::vector<std::string> ours;
      for (std::string line; std::getline(lines, line);)
        if (line.rfind("#SBATCH", 0) == 0)
          for (const std::string& a : testing::sbatch_arguments(line.substr(7))) ours.push_back(a);
      EXPECT_EQ(*sbatch_read, ours);
    }
  }
}

TEST(SweepSlurm, FolderWithABackslashIsRefusedBeforeAnythingIsWritten) {
  const std::string dir = testing::fresh_dir("back") + "/a\\b";
  const std::string sweep = testing::tiny_sweep_file("[vary]\nparallel.tp = 1,2\n");
  const auto w = testing::run_trainsim({"sweep", sweep, "--slurm", "--out", dir});
  EXPECT_EQ(w.exit_code, 2) << w.err;
  EXPECT_EQ(std::count(w.err.begin(), w.err.end(), '\n'), 1) << w.err;
  EXPECT_NE(w.err.find("--out = '" + dir + "'"), std::string::npos) << w.err;
  EXPECT_NE(w.err.find("backslash"), std::string::npos) << w.err;
  EXPECT_FALSE(fs::exists(dir));
}

}  // namespace
}  // namespace trainsim
