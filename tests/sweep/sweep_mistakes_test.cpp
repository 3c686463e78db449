// Sweep mistakes that used to end silently (issue 19, item 4), through the real CLI: a value
// invalid for every point, decreasing progressions, progress with stderr not a terminal, a
// sweep too large to start without --yes, and --out that cannot be a results folder. Each
// refusal is one line and exit 2, with nothing written.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "sim/sweep/read_file.hpp"
#include "stub_sbatch.hpp"
#include "support/run_trainsim.hpp"
#include "tiny_scenario.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using testing::run_trainsim;

using testing::fresh_dir;
const auto sweep_file = testing::tiny_sweep_file;

// Exit 2, one line naming the sweep file and `words`, nothing on stdout, no output folder.
void expect_refused(const std::vector<std::string>& args, const std::string& out_dir, const std::string& sweep,
                    const std::vector<std::string>& words) {
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  if (!sweep.empty()) {
    EXPECT_NE(r.err.find(sweep), std::string::npos) << r.err;
  }
  for (const std::string& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << w << " in " << r.err;
  if (!out_dir.empty()) {
    EXPECT_FALSE(fs::exists(out_dir)) << out_dir;
  }
}

TEST(SweepMistakes, SetValueOfTheWrongTypeIsAnErrorInTheSweepFile) {
  const std::string sweep = sweep_file("[vary]\nparallel.tp = 1,2\n[set]\ntraining.grad_accum = abc\n");
  const std::string out = fresh_dir("out");
  expect_refused({"sweep", sweep, "--out", out}, out, sweep,
                 {"set.training.grad_accum = 'abc'", "expected an integer"});
}

TEST(SweepMistakes, SetValueNotAName) {
  const std::string sweep = sweep_file("[vary]\ntraining.grad_accum = 1,2\n[set]\ncluster.fabric = banana\n");
  const std::string out = fresh_dir("out");
  expect_refused({"sweep", sweep, "--out", out}, out, sweep, {"set.cluster.fabric = 'banana'", "expected one of"});
}

TEST(SweepMistakes, VaryValueOfTheWrongType) {
  const std::string sweep = sweep_file("[vary]\nparallel.tp = 1,banana\n");
  const std::string out = fresh_dir("out");
  expect_refused({"sweep", sweep, "--out", out}, out, sweep, {"vary.parallel.tp = 'banana'", "expected an integer"});
}

// tp 3 cannot divide the tiny scenario's 2 GPUs, whatever grad_accum is.
TEST(SweepMistakes, SetValueBreakingARuleAtEveryPoint) {
  const std::string sweep = sweep_file("[vary]\ntraining.grad_accum = 1,2\n[set]\nparallel.tp = 3\n");
  const std::string out = fresh_dir("out");
  expect_refused({"sweep", sweep, "--out", out}, out, sweep,
                 {"parallel.dp", "not divisible by tp*pp*cp = 3", "every one of the 2 points is invalid"});
}

TEST(SweepMistakes, SomeInvalidPointsAreStillSkippedNotRefused) {
  const std::string sweep = sweep_file("[vary]\nparallel.tp = 1,3\n");
  const auto r = run_trainsim({"sweep", sweep, "--out", fresh_dir("out")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 points: 1 ok, 1 skipped"), std::string::npos) << r.out;
}

TEST(SweepMistakes, DecreasingProgressionsRun) {
  const std::string sweep = sweep_file("[vary]\ntraining.grad_accum = 4,2,...,1\ntraining.micro_batch = 2..1 x0.5\n");
  const std::string out = fresh_dir("out");
  const auto r = run_trainsim({"sweep", sweep, "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("6 points: 6 ok"), std::string::npos) << r.out;
  const std::string csv = sweep::read_file_or_empty(out + "/results.csv");
  EXPECT_NE(csv.find("\n0,4,2,ok,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n5,1,1,ok,"), std::string::npos) << csv;
}

// A skipped point's reason names the sweep file's [vary] key and the base scenario, not a
// `--set` the user never gave (the loader sees a point's values as overrides): computed in
// process and, with --trace, by a `trainsim run --set` child.
TEST(SweepMistakes, ASkippedPointNamesItsVaryKeyNotASet) {
  for (const bool trace : {false, true}) {
    const std::string sweep = sweep_file("[vary]\nparallel.tp = 1,3\n");
    const std::string out = fresh_dir("out");
    std::vector<std::string> args = {"sweep", sweep, "--out", out};
    if (trace) args.push_back("--trace");
    const auto r = run_trainsim(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string csv = sweep::read_file_or_empty(out + "/results.csv");
    const auto row = csv.find("\n1,3,skipped,");
    ASSERT_NE(row, std::string::npos) << csv;
    const std::string reason = csv.substr(row, csv.find('\n', row + 1) - row);
    EXPECT_EQ(reason.find("--set"), std::string::npos) << reason;
    EXPECT_NE(reason.find(sweep + ": vary.parallel.tp = '3': "), std::string::npos) << reason;
    const std::string text = sweep::read_file_or_empty(sweep);
    const auto base = text.find("base = ") + 7;
    EXPECT_NE(reason.find(text.substr(base, text.find('\n', base) - base)), std::string::npos) << reason;
  }
}

// A shard count past an int wrapped: 1/4294967296 died of SIGFPE (a shard count of 0),
// 1/99999999999 ran as shard 1/1215752191. Refused like --shards past 100000.
TEST(SweepMistakes, ShardCountsPastTheLimitAreRefused) {
  const std::string sweep = sweep_file("[vary]\nparallel.tp = 1,2\n");
  for (const char* shard : {"1/4294967296", "1/99999999999", "4294967297/4294967298", "1/100001"}) {
    const std::string out = fresh_dir("out");
    expect_refused({"sweep", sweep, "--out", out, "--shard", shard}, out, "",
                   {std::string("--shard = '") + shard + "'", "n <= 100000"});
  }
}

// With stderr a file (as here), progress comes as whole lines, the last always.
TEST(SweepMistakes, ProgressLinesWhenStderrIsNotATerminal) {
  const auto r = run_trainsim({"sweep", sweep_file("[vary]\nparallel.tp = 1,3\n"), "--out", fresh_dir("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The last progress line ends stderr, but for the accuracy caveat said once.
  const std::string last = "sweep: 2/2 points done, 1 skipped, 0 failed\n";
  const std::string err = testing::without_caveats(r.err);
  ASSERT_GE(err.size(), last.size()) << r.err;
  EXPECT_EQ(err.substr(err.size() - last.size()), last);
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
}

// 101 x 100 points: more than 10,000 need --yes, asked before anything is written.
TEST(SweepMistakes, LargeSweepNeedsYes) {
  const std::string sweep = sweep_file("[vary]\ntraining.grad_accum = 1..101 +1\ntraining.prefetch = 1..100 +1\n");
  const std::string out = fresh_dir("out");
  expect_refused({"sweep", sweep, "--out", out}, out, sweep, {"10100 points", "more than 10,000", "--yes"});
  expect_refused({"sweep", sweep, "--slurm", "--out", out}, out, sweep, {"--yes"});
  // With --yes it starts: --slurm writes its scripts and submits them (to a stub sbatch;
  // nothing is computed here).
  const testing::StubSbatch stub(fresh_dir("stub"));
  const auto r = testing::run_trainsim_after(stub.shell_prefix(), {"sweep", sweep, "--slurm", "--yes", "--out", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out + "/sweep.sbatch"));
}

TEST(SweepMistakes, OutNamingAFile) {
  const std::string file = testing::write_temp_file("a-file", "not a folder\n");
  expect_refused({"sweep", sweep_file("[vary]\nparallel.tp = 1\n"), "--out", file}, "", "",
                 {"--out", "names a file, not a folder"});
  EXPECT_EQ(sweep::read_file_or_empty(file), "not a folder\n");
}

TEST(SweepMistakes, OutUnderAFile) {
  const std::string file = testing::write_temp_file("a-file", "x");
  expect_refused({"sweep", sweep_file("[vary]\nparallel.tp = 1\n"), "--out", file + "/results"}, "", "",
                 {"--out", "cannot create the folder"});
}

// Root writes anywhere a mode allows, but not into /proc.
TEST(SweepMistakes, OutUnwritable) {
  std::string dir = "/proc";
  if (::geteuid() != 0) {
    dir = fresh_dir("readonly");
    fs::create_directories(dir);
    ::chmod(dir.c_str(), 0500);
  }
  expect_refused({"sweep", sweep_file("[vary]\nparallel.tp = 1\n"), "--out", dir}, "", "",
                 {"--out", "cannot write into the folder"});
}

TEST(SweepMistakes, BatchOutNamingAFile) {
  const std::string file = testing::write_temp_file("a-file", "x");
  const std::string scenario = testing::write_temp_file("tiny.ini", testing::tiny_scenario_text());
  expect_refused({"batch", scenario, "--out", file}, "", "", {"trainsim batch", "--out", "names a file"});
}

// A folder holding another sweep's, a plan's or a batch's results is refused, not replaced:
// `plan --out X` into a sweep's folder X wrote its tables and manifest over the sweep's and its
// point files over the sweep's by index (exit 0). The same sweep again, named another way, resumes.
TEST(SweepMistakes, OutHoldingAnotherCommandsResultsIsKept) {
  const std::string sweep = sweep_file("[vary]\nparallel.tp = 1,2\n");
  const std::string out = fresh_dir("others");
  ASSERT_EQ(run_trainsim({"sweep", sweep, "--out", out}).exit_code, 0);
  const std::string table = sweep::read_file_or_empty(out + "/results.csv");
  const std::string manifest = sweep::read_file_or_empty(out + "/sweep-points.json");
  const std::string scenario = testing::write_temp_file("tiny.ini", testing::tiny_scenario_text());
  const std::string holds = "holds the results of the sweep " + sweep;
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"plan", scenario, "--jobs", "1", "--top", "1", "--out", out},
           {"batch", scenario, "--out", out},
           {"sweep", testing::write_temp_file("other.ini", "[sweep]\nbase = " + scenario + "\n[vary]\nparallel.pp = 1,2\n"),
            "--out", out}}) {
    SCOPED_TRACE(args[0]);
    expect_refused(args, "", "", {"--out", holds, "give another folder"});
    EXPECT_EQ(sweep::read_file_or_empty(out + "/results.csv"), table);
    EXPECT_EQ(sweep::read_file_or_empty(out + "/sweep-points.json"), manifest);
  }
  const std::string again = fs::path(sweep).parent_path().string() + "/./" + fs::path(sweep).filename().string();
  const auto r = run_trainsim({"sweep", again, "--out", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 already done"), std::string::npos) << r.out;
}

// A skipped point's reason may quote a path made absolute in a folder whose name is not UTF-8
// (a fabric calibration of another GPU): its point file's JSON could not be written, so the
// point failed ("exited with status 1 without writing its point") and every rerun computed it
// again. It is skipped with its reason, the byte as \xff.
TEST(SweepMistakes, AReasonNamingAPathThatIsNotUtf8IsKept) {
  const std::string cwd = fresh_dir("not_utf8") + "/in\xff";
  fs::create_directories(cwd);
  const auto fabric = run_trainsim({"calibrate", "--from-nccl-tests",
                                    testing::source_path("tests/data/nccl-tests/dgx-h100-2node-all_reduce.log"),
                                    "--cluster", "dgx-h100", "--out", cwd + "/fabric.ini"});
  ASSERT_EQ(fabric.exit_code, 0) << fabric.err;
  std::ofstream(cwd + "/tiny.ini") << testing::tiny_scenario_text();
  std::ofstream(cwd + "/sweep.ini") << "[sweep]\nbase = tiny.ini\n[vary]\ncluster.preset = dgx-h100, dgx-b200\n"
                                       "[set]\ncluster.fabric_calibration = fabric.ini\n";
  const auto r = testing::run_trainsim_after("cd '" + cwd + "' && ", {"sweep", "sweep.ini", "--out", "out"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 ok, 1 skipped, 0 failed"), std::string::npos) << r.out;
  const std::string point = sweep::read_file_or_empty(cwd + "/out/points/000001.json");
  EXPECT_NE(point.find("in\\\\xff/fabric.ini"), std::string::npos) << point;  // \xff, escaped in JSON
}

}  // namespace
}  // namespace trainsim
