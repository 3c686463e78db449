// `trainsim sweep --slurm` on a cluster as it is (sim/sweep/slurm_submission.hpp), with a
// stub sbatch first on PATH (stub_sbatch.hpp): --slurm-option lines in every script as
// sbatch reads them, the merge submitted by trainsim after the array with afterok (never
// from a task), a refused submission on the terminal with a non-zero exit, and
// `sweep --status` saying which points never ran and how the merge ended.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sbatch_reader.hpp"
#include "sim/sweep/read_file.hpp"
#include "stub_sbatch.hpp"
#include "support/run_trainsim.hpp"
#include "tiny_scenario.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

// Every argument of `script`'s #SBATCH lines, as sbatch reads them.
std::vector<std::string> sbatch_lines(const std::string& script) {
  std::vector<std::string> args;
  std::istringstream lines(script);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("#SBATCH", 0) == 0)
      for (const std::string& a : testing::sbatch_arguments(line.substr(7))) args.push_back(a);
  return args;
}

// A sweep file of two points.
std::string two_point_sweep() {
  return testing::tiny_sweep_file("[vary]\nparallel.tp = 1,2\n");
}

// `trainsim sweep SWEEP --slurm` with `args` after it, sbatch stubbed.
testing::RunResult slurm_sweep(const testing::StubSbatch& stub, const std::vector<std::string>& args,
                               const std::string& sweep = two_point_sweep()) {
  std::vector<std::string> all = {"sweep", sweep, "--slurm"};
  all.insert(all.end(), args.begin(), args.end());
  return testing::run_trainsim_after(stub.shell_prefix(), all);
}

TEST(SlurmSubmission, OptionsGoIntoEveryScriptAsSbatchReadsThem) {
  const std::string root = testing::fresh_dir("slurm_options");
  const testing::StubSbatch stub(root + "/stub");
  const std::string dir = root + "/out";
  const std::vector<std::string> options = {"--partition=gpu", "--time=02:00:00", "-Aproj#1",
                                            "--comment=two words, \"quoted\" and 'single'"};
  std::vector<std::string> args = {"--out", dir};
  for (const std::string& o : options) args.push_back("--slurm-option=" + o);
  const auto w = slurm_sweep(stub, args);
  ASSERT_EQ(w.exit_code, 0) << w.err;
  for (const std::string& file : {dir + "/sweep.sbatch", dir + "/slurm/merge.sbatch"}) {
    SCOPED_TRACE(file);
    const std::vector<std::string> read = sbatch_lines(sweep::read_file_or_empty(file));
    for (const std::string& o : options)
      EXPECT_EQ(std::count(read.begin(), read.end(), o), 1) << o;
    // Slurm's own reader, where installed, finds the same arguments.
    if (const auto own = testing::arguments_sbatch_reads(file, root + "/conf")) {
      EXPECT_EQ(*own, read);
    }
  }
}

TEST(SlurmSubmission, TheMergeIsSubmittedAfterTheArrayWithAfterokNotFromATask) {
  const std::string root = testing::fresh_dir("slurm_dependency");
  const testing::StubSbatch stub(root + "/stub");
  const std::string dir = root + "/out";
  const std::string sweep = two_point_sweep();
  const auto w = slurm_sweep(stub, {"--out", dir}, sweep);
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_NE(w.out.find("submitted: array job 1001, then merge job 1002 once every task has succeeded"),
            std::string::npos)
      << w.out;
  const auto calls = stub.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0], (std::vector<std::string>{"--parsable", dir + "/sweep.sbatch"}));
  EXPECT_EQ(calls[1], (std::vector<std::string>{"--parsable", "--dependency=afterok:1001", "--kill-on-invalid-dep=yes",
                                                dir + "/slurm/merge.sbatch"}));
  // No task submits anything: sbatch appears in no command of the array script.
  std::istringstream lines(sweep::read_file_or_empty(dir + "/sweep.sbatch"));
  for (std::string line; std::getline(lines, line);)
    if (line.rfind('#', 0) != 0) {
      EXPECT_EQ(line.find("sbatch"), std::string::npos) << line;
    }

  // Nothing ran yet: both points never ran, the merge has not run.
  auto status = testing::run_trainsim({"sweep", "--status", dir});
  EXPECT_EQ(status.exit_code, 1) << status.err;
  EXPECT_NE(status.out.find("2 points: 0 ok, 0 skipped, 0 failed, 2 never run"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("slurm: array job 1001, then merge job 1002"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("merge: job 1002 has not run"), std::string::npos) << status.out;

  // The tasks and the merge run (here by hand, as the scripts would), the merge records exit 1.
  for (const std::string shard : {"1/2", "2/2"})
    ASSERT_EQ(testing::run_trainsim({"sweep", sweep, "--shard", shard, "--out", dir}).exit_code, 0);
  ASSERT_EQ(testing::run_trainsim({"sweep", "--merge", dir}).exit_code, 0);
  // Its log (Slurm creates it when the job starts) without an exit status: not ended.
  std::ofstream(dir + "/slurm/merge_1002.out") << "log\n";
  status = testing::run_trainsim({"sweep", "--status", dir});
  EXPECT_EQ(status.exit_code, 1) << status.out;
  EXPECT_NE(status.out.find("merge: job 1002 started and has not ended, or was killed"), std::string::npos)
      << status.out;
  std::ofstream(dir + "/slurm/merge_1002.exit") << "1\n";
  status = testing::run_trainsim({"sweep", "--status", dir});
  EXPECT_EQ(status.exit_code, 1) << status.out;
  EXPECT_NE(status.out.find("2 points: 2 ok, 0 skipped, 0 failed, 0 never run"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("merge: job 1002 failed (exit status 1): see " + dir + "/slurm/merge_1002.out"),
            std::string::npos)
      << status.out;
  std::ofstream(dir + "/slurm/merge_1002.exit") << "0\n";
  status = testing::run_trainsim({"sweep", "--status", dir});
  EXPECT_EQ(status.exit_code, 0) << status.out;
  EXPECT_NE(status.out.find("merge: job 1002 done"), std::string::npos) << status.out;
}

TEST(SlurmSubmission, TheMergeScriptRecordsItsExitStatus) {
  const std::string root = testing::fresh_dir("slurm_merge_exit");
  const testing::StubSbatch stub(root + "/stub");
  const std::string dir = root + "/out";
  ASSERT_EQ(slurm_sweep(stub, {"--out", dir}).exit_code, 0);
  // The merge script as Slurm runs it: bash, SLURM_JOB_ID set; no point done, so exit 0 with
  // pending points (the merge of an incomplete folder still writes the tables).
  const std::string command =
      "SLURM_JOB_ID=77 bash '" + dir + "/slurm/merge.sbatch' >'" + root + "/merge.log' 2>&1";
  const int code = std::system(command.c_str());
  EXPECT_TRUE(WIFEXITED(code)) << command;
  EXPECT_EQ(sweep::read_file_or_empty(dir + "/slurm/merge_77.exit"), std::to_string(WEXITSTATUS(code)) + "\n");
  EXPECT_TRUE(fs::exists(dir + "/results.csv"));
}

TEST(SlurmSubmission, ARefusedArrayIsShownWithSbatchsMessageAndExitsNonZero) {
  const std::string root = testing::fresh_dir("slurm_refused");
  const std::string message = "sbatch: error: invalid partition specified: gpu";
  const testing::StubSbatch stub(root + "/stub", message + "\nsbatch: error: Batch job submission failed");
  const std::string dir = root + "/out";
  const auto w = slurm_sweep(stub, {"--out", dir, "--slurm-option=--partition=gpu"});
  EXPECT_EQ(w.exit_code, 1) << w.err;
  EXPECT_EQ(std::count(w.err.begin(), w.err.end(), '\n'), 1) << w.err;
  EXPECT_NE(w.err.find("nothing submitted"), std::string::npos) << w.err;
  EXPECT_NE(w.err.find(message), std::string::npos) << w.err;
  EXPECT_EQ(stub.calls().size(), 1u);  // the merge is not submitted without its array
  const auto status = testing::run_trainsim({"sweep", "--status", dir});
  EXPECT_EQ(status.exit_code, 1);
  EXPECT_NE(status.out.find("2 never run"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("slurm: not submitted: sbatch --parsable " + dir + "/sweep.sbatch failed (exit status 1): " +
                            message),
            std::string::npos)
      << status.out;
}

// A folder whose name is not UTF-8 is in the refused sbatch command: its bytes are said as C
// escapes on stderr, in the record and by --status (the record had U+FFFD, stderr the raw byte).
TEST(SlurmSubmission, AFolderNotUtf8IsNamedByItsBytesInTheRecord) {
  const std::string root = testing::fresh_dir("slurm_refused_not_utf8");
  const testing::StubSbatch stub(root + "/stub", "sbatch: error: invalid partition specified: gpu");
  const std::string dir = root + "/out\xff";
  const std::string said = "sbatch --parsable '" + root + "/out\\xff/sweep.sbatch' failed (exit status 1)";
  const auto w = slurm_sweep(stub, {"--out", dir});
  EXPECT_EQ(w.exit_code, 1) << w.err;
  EXPECT_NE(w.err.find(said), std::string::npos) << w.err;
  EXPECT_EQ(w.err.find('\xff'), std::string::npos) << w.err;
  const std::string record = sweep::read_file_or_empty(dir + "/slurm/submission.json");
  EXPECT_EQ(record.find("\xef\xbf\xbd"), std::string::npos) << record;  // no U+FFFD
  const auto status = testing::run_trainsim({"sweep", "--status", dir});
  EXPECT_NE(status.out.find("slurm: not submitted: " + said), std::string::npos) << status.out;
}

TEST(SlurmSubmission, ARefusedMergeIsShownAndSaysHowToMerge) {
  const std::string root = testing::fresh_dir("slurm_refused_merge");
  const testing::StubSbatch stub(root + "/stub", "sbatch: error: Job dependency problem", 2);
  const std::string dir = root + "/out";
  const auto w = slurm_sweep(stub, {"--out", dir});
  EXPECT_EQ(w.exit_code, 1) << w.err;
  EXPECT_NE(w.err.find("array job 1001 submitted, but not its merge"), std::string::npos) << w.err;
  EXPECT_NE(w.err.find("Job dependency problem"), std::string::npos) << w.err;
  const auto status = testing::run_trainsim({"sweep", "--status", dir});
  EXPECT_EQ(status.exit_code, 1);
  EXPECT_NE(status.out.find("slurm: array job 1001; the merge was not submitted"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("trainsim sweep --merge " + dir), std::string::npos) << status.out;
}

// An sbatch that exits 0 yet prints no job id (nothing, or a site wrapper's sentence) gave an
// "internal error"; it is one line saying so, quoting what it printed, exit 1, recorded for
// --status, and the merge is not submitted without an array job to wait on.
TEST(SlurmSubmission, AnSbatchThatPrintsNoJobIdIsSaidNotAnInternalError) {
  const std::string root = testing::fresh_dir("slurm_no_job_id");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "it printed nothing on standard output"},
      {"Submitted batch job 1001\n\n", "it printed 'Submitted batch job 1001'"},
      {"   \n", "it printed nothing on standard output"},
      // Bytes that are not UTF-8 and an escape sequence: "internal error: [json.exception.type_error.316]",
      // no record for --status.
      {"\\377\\376 bad\\033[31m", "it printed '\\xff\\xfe bad\\x1b[31m'"},
  };
  int n = 0;
  for (const auto& [printed, said] : cases) {
    SCOPED_TRACE(printed);
    const std::string stub = root + "/stub" + std::to_string(++n);
    const std::string dir = root + "/out" + std::to_string(n);
    fs::create_directories(stub);
    std::ofstream(stub + "/sbatch") << "#!/bin/sh\necho called >> '" << stub << "/calls'\nprintf '" << printed << "'\n";
    fs::permissions(stub + "/sbatch", fs::perms::owner_all, fs::perm_options::replace);
    const auto w = testing::run_trainsim_after("PATH='" + stub + "':\"$PATH\" exec ",
                                               {"sweep", two_point_sweep(), "--slurm", "--out", dir});
    EXPECT_EQ(w.exit_code, 1) << w.err;
    EXPECT_EQ(std::count(w.err.begin(), w.err.end(), '\n'), 1) << w.err;
    EXPECT_EQ(w.err.find("internal error"), std::string::npos) << w.err;
    EXPECT_NE(w.err.find("nothing submitted: sbatch --parsable " + dir + "/sweep.sbatch gave no job id (exit status 0; " +
                         said + ")"),
              std::string::npos)
        << w.err;
    EXPECT_EQ(sweep::read_file_or_empty(stub + "/calls"), "called\n");  // no merge without its array
    const auto status = testing::run_trainsim({"sweep", "--status", dir});
    EXPECT_EQ(status.exit_code, 1);
    EXPECT_NE(status.out.find("gave no job id"), std::string::npos) << status.out;
  }
}

TEST(SlurmSubmission, BadOptionsAreRefusedBeforeAnythingIsWrittenOrSubmitted) {
  const std::string root = testing::fresh_dir("slurm_bad_options");
  const testing::StubSbatch stub(root + "/stub");
  const std::string dir = root + "/out";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"partition=gpu", "starting with '-'"},
      {"--time=1\n#SBATCH --exclusive", "line end"},
      {"--array=1-3", "trainsim writes --array itself (--shards sets it)"},
      {"-o/tmp/x", "trainsim writes --output itself"},
      {"--cpus-per-task=4", "--jobs sets it"},
      {"--dependency=afterany:1", "trainsim writes --dependency itself"},
  };
  for (const auto& [option, rule] : cases) {
    SCOPED_TRACE(option);
    const auto w = slurm_sweep(stub, {"--out", dir, "--slurm-option=" + option});
    EXPECT_EQ(w.exit_code, 2) << w.err;
    // One line, the option's own line end written as \n (sim/cli/main.cpp).
    EXPECT_EQ(std::count(w.err.begin(), w.err.end(), '\n'), 1) << w.err;
    EXPECT_NE(w.err.find("--slurm-option"), std::string::npos) << w.err;
    EXPECT_NE(w.err.find(rule), std::string::npos) << w.err;
    EXPECT_FALSE(fs::exists(dir));
  }
  const auto local = testing::run_trainsim_after(
      stub.shell_prefix(),
      {"sweep", two_point_sweep(), "--out", dir, "--slurm-option=--time=5"});
  EXPECT_EQ(local.exit_code, 2) << local.err;
  EXPECT_NE(local.err.find("applies to --slurm only"), std::string::npos) << local.err;
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_TRUE(stub.calls().empty());
}

}  // namespace
}  // namespace trainsim
