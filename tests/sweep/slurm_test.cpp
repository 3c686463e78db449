// The Slurm path end to end on a real single-node Slurm (local_slurm.hpp): `trainsim sweep
// --slurm` writes the job array and submits it and the merge, Slurm runs them, and the merged
// table equals a local run's; a partition Slurm does not have is refused on the terminal.
// Skip, with the reason, where Slurm cannot be started. And the text --slurm writes for its
// readers, with folder names that need quoting (sbatch stubbed, stub_sbatch.hpp): the paths
// sbatch is given, the printed status line as bash runs it, the #SBATCH --output lines as
// sbatch reads them (sbatch_reader.hpp; and Slurm's own sbatch where it is installed).

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
#include "stub_sbatch.hpp"
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
  // trainsim submits the array and the merge after it, with options Slurm takes.
  int code = 0;
  const std::string w = slurm.shell("'" + std::string(TRAINSIM_EXE) + "' sweep '" + sweep +
                                        "' --slurm --shards 3 --jobs 1 --slurm-option=--time=5 "
                                        "--slurm-option=--comment=\"a sweep\" --out '" + dir + "' 2>&1",
                                    60, &code);
  ASSERT_EQ(code, 0) << w;
  EXPECT_NE(w.find("6 points in 3 array tasks"), std::string::npos) << w;
  EXPECT_NE(w.find("submitted: array job "), std::string::npos) << w;
  // Done when the merge has recorded its exit status (at most 90 s).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  std::string status;
  while (std::chrono::steady_clock::now() < deadline) {
    status = slurm.shell("'" + std::string(TRAINSIM_EXE) + "' sweep --status '" + dir + "'", 20, &code);
    if (code == 0 && slurm.shell("squeue -h", 5).empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  EXPECT_EQ(code, 0) << status << "squeue: " << slurm.shell("squeue", 5);
  EXPECT_NE(status.find("6 points: 4 ok, 2 skipped, 0 failed, 0 never run"), std::string::npos) << status;
  EXPECT_NE(status.find(" done: "), std::string::npos) << status;
  const std::string csv = sweep::read_file_or_empty(dir + "/results.csv");
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

TEST(SweepSlurm, ARealSbatchRefusalIsShownAndExitsNonZero) {
  const std::string root = testing::write_temp_file("slurm_refusal", "");
  fs::remove_all(root);
  const testing::LocalSlurm slurm(root + "/cluster");
  if (!slurm.ready()) GTEST_SKIP() << "no local Slurm: " << slurm.why();
  const std::string sweep = testing::tiny_sweep_file("[vary]\nparallel.tp = 1,2\n");
  int code = 0;
  const std::string w = slurm.shell("'" + std::string(TRAINSIM_EXE) + "' sweep '" + sweep +
                                        "' --slurm --slurm-option=--partition=no-such-partition --out '" + root +
                                        "/out' 2>&1",
                                    60, &code);
  EXPECT_EQ(code, 1) << w;
  EXPECT_NE(w.find("nothing submitted"), std::string::npos) << w;
  EXPECT_NE(w.find("sbatch: error"), std::string::npos) << w;
  EXPECT_TRUE(slurm.shell("squeue -h", 5).empty());
}

// The failure issue 55 met: tasks that fail (here their executable is gone when they start)
// leave their points never run; the merge, after them with afterok, never runs; --status says so.
TEST(SweepSlurm, FailedTasksAndNoMerge) {
  const std::string root = testing::write_temp_file("slurm", "");
  fs::remove_all(root);
  const testing::LocalSlurm slurm(root + "/cluster");
  if (!slurm.ready()) GTEST_SKIP() << "no local Slurm: " << slurm.why();
  fs::create_directories(root + "/bin");
  fs::copy_file(TRAINSIM_EXE, root + "/bin/trainsim");
  // The copy finds the build's presets and tables beside it (an install's layout).
  fs::create_directories(root + "/share");
  fs::create_directory_symlink(fs::absolute(fs::path(TRAINSIM_EXE).parent_path() / "share" / "trainsim"),
                               root + "/share/trainsim");
  const std::string sweep = testing::tiny_sweep_file("[vary]\nparallel.tp = 1,2\n");
  const std::string dir = root + "/out";
  int code = 0;
  // Held at submission (an option Slurm takes), so that the copy can go before a task starts.
  const std::string w = slurm.shell("'" + root + "/bin/trainsim' sweep '" + sweep +
                                        "' --slurm --slurm-option=--hold --out '" + dir + "' 2>&1",
                                    60, &code);
  ASSERT_EQ(code, 0) << w;
  const std::string prefix = "submitted: array job ";
  const auto at = w.find(prefix);
  ASSERT_NE(at, std::string::npos) << w;
  const std::string array = w.substr(at + prefix.size(), w.find(',', at) - at - prefix.size());
  fs::remove(root + "/bin/trainsim");
  slurm.shell("scontrol release " + array, 20, &code);
  ASSERT_EQ(code, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && !slurm.shell("squeue -h -r -j " + array, 5).empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // The merge, whose dependency can no longer be met, is cancelled (--kill-on-invalid-dep).
  const std::string merge_prefix = "then merge job ";
  const auto merge_at = w.find(merge_prefix);
  ASSERT_NE(merge_at, std::string::npos) << w;
  const std::string merge = w.substr(merge_at + merge_prefix.size(), w.find(' ', merge_at + merge_prefix.size()) -
                                                                         merge_at - merge_prefix.size());
  // (Slurm checks dependencies on its scheduling pass: about a minute here.)
  const auto queued = [&] { return slurm.shell("squeue -h -o %i", 5).find(merge + "\n") != std::string::npos; };
  const auto merge_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(100);
  while (std::chrono::steady_clock::now() < merge_deadline && queued())
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_FALSE(queued()) << "merge job " << merge << " still queued: " << slurm.shell("squeue", 5);
  const auto status = testing::run_trainsim({"sweep", "--status", dir});
  EXPECT_EQ(status.exit_code, 1) << status.out;
  EXPECT_NE(status.out.find("2 points: 0 ok, 0 skipped, 0 failed, 2 never run"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("has not run: Slurm starts it once every array task has succeeded"), std::string::npos)
      << status.out;
  EXPECT_FALSE(fs::exists(dir + "/results.csv"));
}

// Folder names a shell must not split or run: a space, a quote, a command substitution
// and a backquoted command (each would create `pwned` in the shell's folder if run).
const std::vector<std::string> k_shell_names = {"with space", "it's", "$(touch pwned)", "`touch pwned`"};
// Folder names sbatch's reader or its filename pattern would cut or change.
const std::vector<std::string> k_sbatch_names = {"with space", "it's", "say \"hi\"", "100%", "#7", "tab\there"};

// `trainsim sweep --slurm --out DIR` of a two-point sweep, sbatch stubbed in `root`/stub;
// returns its stdout.
std::string slurm_scripts_into(const std::string& dir, const std::string& root) {
  const std::string sweep = testing::tiny_sweep_file("[vary]\nparallel.tp = 1,2\n");
  const testing::StubSbatch stub(root + "/stub");
  const auto w = testing::run_trainsim_after(stub.shell_prefix(), {"sweep", sweep, "--slurm", "--out", dir});
  EXPECT_EQ(w.exit_code, 0) << w.err;
  return w.out;
}

// The text after "status: " on the line that starts with it.
std::string status_line(const std::string& out) {
  const std::string prefix = "status: ";
  const auto at = out.find(prefix);
  if (at == std::string::npos) return "";
  const auto start = at + prefix.size();
  return out.substr(start, out.find('\n', start) - start);
}

// Runs `line` in bash from `root`/cwd with `program` replaced by a stub that records its
// arguments, each ended by a NUL; returns the record.
std::string run_with_stub(const std::string& line, const std::string& program, const std::string& root) {
  fs::create_directories(root + "/line-stub");
  fs::create_directories(root + "/cwd");
  std::ofstream(root + "/line-stub/" + program) << "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$STUB_RECORD\"\n";
  fs::permissions(root + "/line-stub/" + program, fs::perms::owner_all, fs::perm_options::replace);
  std::ofstream(root + "/line.sh") << line << "\n";
  // `root` is a test folder of plain characters: single quotes suffice here.
  const std::string command = "cd '" + root + "/cwd' && STUB_RECORD='" + root + "/record' PATH='" + root +
                              "/line-stub':\"$PATH\" bash '" + root + "/line.sh' </dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0) << line;
  return sweep::read_file_or_empty(root + "/record");
}

TEST(SweepSlurm, SbatchAndTheStatusLineGetTheExactPathAndRunNothing) {
  const std::string root = testing::fresh_dir("submit");
  for (const std::string& name : k_shell_names) {
    SCOPED_TRACE(name);
    const std::string dir = root + "/" + name;
    fs::remove_all(root + "/stub");
    const std::string out = slurm_scripts_into(dir, root);
    // sbatch is given the scripts' exact paths (as arguments, no shell in between).
    const auto calls = testing::StubSbatch(root + "/stub").calls();
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(calls[0].back(), dir + "/sweep.sbatch");
    EXPECT_EQ(calls[1].back(), dir + "/slurm/merge.sbatch");
    // The printed status line, pasted into bash, names the folder and runs nothing.
    const std::string line = status_line(out);
    ASSERT_EQ(line.rfind("trainsim ", 0), 0u) << out;
    const std::string record = run_with_stub(line, "trainsim", root);
    EXPECT_EQ(record, std::string("sweep") + '\0' + "--status" + '\0' + dir + '\0') << line;
    EXPECT_FALSE(fs::exists(root + "/cwd/pwned")) << line << " ran a command";
    fs::remove(root + "/cwd/pwned");
    fs::remove(root + "/record");
  }
  // A plain folder stays readable: no quotes.
  const std::string plain = root + "/plain-1.x";
  fs::remove_all(root + "/stub");
  EXPECT_EQ(status_line(slurm_scripts_into(plain, root)), "trainsim sweep --status " + plain);
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
    fs::remove_all(root + "/stub");
    slurm_scripts_into(dir, root);
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

// Run from a folder whose name is not UTF-8, by relative names: the array's tasks read the
// sweep file by its absolute path, which trainsim refuses (ini_reader.cpp), so every task of
// the submitted array failed. Refused before anything is written or submitted.
TEST(SweepSlurm, ASweepFileWhoseAbsolutePathIsNotUtf8IsRefused) {
  const std::string root = testing::fresh_dir("not_utf8");
  const std::string cwd = root + "/in\xff";
  fs::create_directories(cwd);
  std::ofstream(cwd + "/tiny.ini") << testing::tiny_scenario_text();
  std::ofstream(cwd + "/sweep.ini") << "[sweep]\nbase = tiny.ini\n[vary]\nparallel.tp = 1,2\n";
  const testing::StubSbatch stub(root + "/stub");
  const auto w = testing::run_trainsim_after("cd '" + cwd + "' && " + stub.shell_prefix(),
                                             {"sweep", "sweep.ini", "--slurm", "--out", "out"});
  EXPECT_EQ(w.exit_code, 2) << w.err;
  EXPECT_EQ(std::count(w.err.begin(), w.err.end(), '\n'), 1) << w.err;
  EXPECT_NE(w.err.find("SWEEP = '" + root + "/in\\xff/sweep.ini'"), std::string::npos) << w.err;
  EXPECT_NE(w.err.find("not UTF-8"), std::string::npos) << w.err;
  EXPECT_TRUE(stub.calls().empty());
  EXPECT_FALSE(fs::exists(cwd + "/out"));
  // Without --slurm the relative names are all trainsim keeps: the sweep runs.
  const auto local = testing::run_trainsim_after("cd '" + cwd + "' && ", {"sweep", "sweep.ini", "--out", "out"});
  EXPECT_EQ(local.exit_code, 0) << local.err;
}

}  // namespace
}  // namespace trainsim
