// `trainsim sweep` as users run it: invalid points skipped with the reason, the same
// results for --jobs 1 and --jobs 2, resume after kill -9, shards and merge, bad sweep files.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "sim/sweep/read_file.hpp"
#include "support/run_trainsim.hpp"
#include "tiny_scenario.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using testing::run_trainsim;

using testing::fresh_dir;

std::string tiny_sweep(const std::string& vary, const std::string& sweep_section = "") {
  return testing::tiny_sweep_file(sweep_section + "[vary]\n" + vary);
}

std::string csv(const std::string& dir) {
  return sweep::read_file_or_empty(dir + "/results.csv");
}

// The values of `name` in a results.csv text, row by row; empty when there is no such column.
std::vector<double> column(const std::string& text, const std::string& name) {
  std::istringstream lines(text);
  std::string header, line;
  std::getline(lines, header);
  std::vector<std::string> columns;
  for (std::istringstream h(header); std::getline(h, line, ',');) columns.push_back(line);
  const auto at = std::find(columns.begin(), columns.end(), name);
  std::vector<double> values;
  if (at == columns.end()) return values;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    for (std::istringstream c(line); std::getline(c, header, ',');) cells.push_back(header);
    values.push_back(std::stod(cells.at(static_cast<size_t>(at - columns.begin()))));
  }
  return values;
}

TEST(SweepCli, SameResultsForOneAndTwoJobsAndInvalidPointsSkipped) {
  const std::string sweep = tiny_sweep("parallel.tp = 1,2,3\ntraining.grad_accum = 1,2\n");
  const std::string one = fresh_dir("one"), two = fresh_dir("two");
  const auto a = run_trainsim({"sweep", sweep, "--jobs", "1", "--out", one});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("6 points: 4 ok, 2 skipped, 0 failed, 0 pending"), std::string::npos) << a.out;
  // Not a terminal: no redrawn line, whole lines now and then, and the last (issue 19).
  EXPECT_EQ(a.err.find('\r'), std::string::npos) << a.err;
  // The progress ends with the last line; only the accuracy caveat (said once) may follow.
  const std::string last = "sweep: 6/6 points done, 2 skipped, 0 failed\n";
  const auto at = a.err.rfind(last);
  ASSERT_NE(at, std::string::npos) << a.err;
  const std::string after = a.err.substr(at + last.size());
  EXPECT_TRUE(after.empty() || (after.starts_with("trainsim sweep: caveat: ") &&
                                std::count(after.begin(), after.end(), '\n') == 1))
      << a.err;
  const auto b = run_trainsim({"sweep", sweep, "--jobs", "2", "--out", two});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(csv(one), csv(two));
  const std::string text = csv(one);
  EXPECT_EQ(text.rfind("point,parallel.tp,training.grad_accum,status,reason,fits,capacity_bytes,headroom_bytes,step_time_s,", 0), 0u) << text;
  // tp 3 does not divide 2 GPUs: skipped, with the scenario loader's one-line reason.
  EXPECT_NE(text.find("\n4,3,1,skipped,"), std::string::npos) << text;
  EXPECT_NE(text.find("not divisible by tp*pp*cp = 3"), std::string::npos) << text;
  EXPECT_NE(text.find("\n0,1,1,ok,,"), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(one + "/results.h5"));
}

using testing::count_point_files;
using testing::point_inodes;

TEST(SweepCli, ResumesAfterKill9WithoutRecomputing) {
  const std::string sweep = tiny_sweep("training.grad_accum = 1..12 +1\nparallel.tp = 1,2\n");
  const std::string dir = fresh_dir("killed"), clean = fresh_dir("clean");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setpgid(0, 0);  // its own group: kill -9 takes the sweep and its running children
    ::freopen("/dev/null", "w", stdout);
    ::freopen("/dev/null", "w", stderr);
    ::execl(TRAINSIM_EXE, TRAINSIM_EXE, "sweep", sweep.c_str(), "--jobs", "1", "--out", dir.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (count_point_files(dir) < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ::kill(-pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const auto before = point_inodes(dir);
  ASSERT_GE(before.size(), 3u);
  if (before.size() == 24u) GTEST_SKIP() << "the sweep finished before it could be killed";

  const auto resumed = run_trainsim({"sweep", sweep, "--jobs", "2", "--out", dir});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find(std::to_string(before.size()) + " already done"), std::string::npos) << resumed.out;
  const auto after = point_inodes(dir);
  for (const auto& [path, ino] : before) EXPECT_EQ(after.at(path), ino) << path << " was rewritten";
  EXPECT_EQ(after.size(), 24u);

  const auto reference = run_trainsim({"sweep", sweep, "--jobs", "2", "--out", clean});
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  EXPECT_EQ(csv(dir), csv(clean));

  const auto again = run_trainsim({"sweep", sweep, "--out", dir});
  EXPECT_NE(again.out.find("24 already done"), std::string::npos) << again.out;
}

// A point is computed by a build and its data folder as much as by its scenario: an edited GPU
// preset (or calibration table, or another build) must not leave the old points reused as the
// new results (sim/sweep/engine_identity.hpp). Fails where the fingerprint is the scenario and
// overrides alone: the rerun reused every point computed with the old preset.
TEST(SweepCli, AnEditedDataFolderRecomputesThePoints) {
  const std::string sweep = tiny_sweep("training.grad_accum = 1,2\n");
  const fs::path data = fs::path(fresh_dir("data"));
  fs::copy(fs::path(TRAINSIM_EXE).parent_path() / "share" / "trainsim", data, fs::copy_options::recursive);
  const fs::path preset = data / "presets" / "gpus" / "h100-sxm.ini";
  std::string text = testing::slurp(preset.string());
  ASSERT_NE(text.find("peak_bf16 = 989TFLOP/s"), std::string::npos) << preset;
  const std::string with_data = "exec env TRAINSIM_DATA='" + data.string() + "' ";
  const auto sweep_into = [&](const std::string& dir) {
    return testing::run_executable(with_data, TRAINSIM_EXE, {"sweep", sweep, "--out", dir});
  };
  const std::string dir = fresh_dir("edited"), fresh = fresh_dir("fresh");
  const auto first = sweep_into(dir);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string before = csv(dir);
  const auto again = sweep_into(dir);
  EXPECT_NE(again.out.find("2 already done"), std::string::npos) << again.out;  // the same build and data

  text.replace(text.find("peak_bf16 = 989TFLOP/s"), 22, "peak_bf16 = 500TFLOP/s");
  { std::ofstream(preset, std::ios::trunc) << text; }
  const auto rerun = sweep_into(dir);
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_NE(rerun.out.find(", 0 already done"), std::string::npos) << rerun.out;
  const auto reference = sweep_into(fresh);
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  EXPECT_EQ(csv(dir), csv(fresh));
  EXPECT_NE(csv(dir), before);
}

TEST(SweepCli, ShardsThenMerge) {
  const std::string sweep = tiny_sweep("parallel.tp = 1,2,3\n");
  const std::string dir = fresh_dir("sharded");
  const auto s1 = run_trainsim({"sweep", sweep, "--shard", "1/2", "--out", dir});
  ASSERT_EQ(s1.exit_code, 0) << s1.err;
  EXPECT_NE(s1.out.find("shard 1/2: 2 points to compute"), std::string::npos) << s1.out;
  const auto s2 = run_trainsim({"sweep", sweep, "--shard", "2/2", "--out", dir});
  ASSERT_EQ(s2.exit_code, 0) << s2.err;
  const auto merged = run_trainsim({"sweep", "--merge", dir});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.out.find("3 points: 2 ok, 1 skipped, 0 failed, 0 pending"), std::string::npos) << merged.out;
}

// The table without its column `trace`: everything else must not depend on --trace (the
// validation family and caveat after it included). Cells split at every comma: the tables
// compared hold no quoted cells.
std::string without_trace_column(const std::string& csv_text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(csv_text);
  for (std::string line, cell; std::getline(lines, line);) {
    rows.emplace_back();
    for (std::istringstream c(line + ","); std::getline(c, cell, ',');) rows.back().push_back(cell);
  }
  if (rows.empty()) return "";
  const auto at = std::find(rows[0].begin(), rows[0].end(), "trace") - rows[0].begin();
  std::string out;
  for (std::vector<std::string>& row : rows) {
    if (static_cast<size_t>(at) < row.size()) row.erase(row.begin() + at);
    for (size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + row[i];
    out += "\n";
  }
  return out;
}

// Issue 55 item 9: a sweep over the data parallelism with the global batch fixed. The tiny
// scenario's grad_accum 2 gives way to training.global_batch = 8: dp 2 and 4 run grad_accum 4
// and 2, the same 8 samples a step; dp 6 cannot split 8 samples and is skipped with the rule.
TEST(SweepCli, GlobalBatchKeptAcrossDataParallelSizes) {
  const std::string sweep = tiny_sweep("cluster.nodes = 1,2,3\n[set]\ntraining.global_batch = 8\n");
  const std::string dir = fresh_dir("global-batch");
  const auto r = run_trainsim({"sweep", sweep, "--jobs", "2", "--out", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = csv(dir);
  std::istringstream lines(text);
  std::string header, line;
  std::getline(lines, header);
  std::vector<std::string> names;
  for (std::istringstream h(header); std::getline(h, line, ',');) names.push_back(line);
  const auto column_of = [&](const std::string& name) {
    return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  std::vector<std::vector<std::string>> rows;
  while (std::getline(lines, line)) {
    rows.emplace_back();
    for (std::istringstream c(line); std::getline(c, header, ',');) rows.back().push_back(header);
  }
  ASSERT_EQ(rows.size(), 3u) << text;
  for (const size_t i : {0u, 1u}) {
    EXPECT_EQ(rows[i].at(column_of("status")), "ok") << text;
    EXPECT_EQ(std::stod(rows[i].at(column_of("global_batch_samples"))), 8.0) << text;
  }
  EXPECT_EQ(rows[2].at(column_of("status")), "skipped") << text;
  EXPECT_NE(text.find("training.global_batch = '8': must be a multiple of training.micro_batch x parallel.dp = 1 x 6"),
            std::string::npos)
      << text;
  // The step differs: the micro-batches a pipeline runs halve as dp doubles.
  EXPECT_NE(rows[0].at(column_of("step_time_s")), rows[1].at(column_of("step_time_s")));
}

TEST(SweepCli, TraceWritesOneHdf5TracePerPoint) {
  const std::string sweep = tiny_sweep("parallel.tp = 1,3\n");
  const std::string plain = fresh_dir("plain"), traced = fresh_dir("traced");
  ASSERT_EQ(run_trainsim({"sweep", sweep, "--out", plain}).exit_code, 0);
  const auto r = run_trainsim({"sweep", sweep, "--trace", "--out", traced});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(traced + "/traces/000000.h5"));
  EXPECT_FALSE(fs::exists(traced + "/traces/000001.h5"));  // skipped: nothing simulated
  const std::string text = csv(traced);
  EXPECT_NE(text.find(",traces/000000.h5,dense-hopper,"), std::string::npos) << text;
  EXPECT_EQ(without_trace_column(text), without_trace_column(csv(plain)));
  // Points computed without a trace are redone when --trace is asked for.
  EXPECT_NE(run_trainsim({"sweep", sweep, "--trace", "--out", plain}).out.find("0 already done"), std::string::npos);
}

// A trace that cannot be written (the disk full: a trace name linked to /dev/full) is a failed
// point, exit 1, computed again by the next run; it was "skipped", as if the point were
// invalid, and the sweep ended 0 with the trace lost.
TEST(SweepCli, ATraceThatCannotBeWrittenFailsThePoint) {
  const std::string sweep = tiny_sweep("training.micro_batch = 1,2\n");
  const std::string dir = fresh_dir("trace-full");
  ASSERT_EQ(run_trainsim({"sweep", sweep, "--trace", "--jobs", "1", "--out", dir}).exit_code, 0);
  fs::remove(dir + "/points/000000.json");
  fs::remove(dir + "/traces/000000.h5");
  fs::create_symlink("/dev/full", dir + "/traces/000000.h5");
  const auto r = run_trainsim({"sweep", sweep, "--trace", "--jobs", "1", "--out", dir});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("1 ok, 0 skipped, 1 failed"), std::string::npos) << r.out;
  const std::string text = csv(dir);
  EXPECT_NE(text.find(",failed,trainsim run exited with status 2: cannot write " + dir + "/traces/000000.h5: " +
                      std::strerror(ENOSPC)),
            std::string::npos)
      << text;
  fs::remove(dir + "/traces/000000.h5");
  const auto again = run_trainsim({"sweep", sweep, "--trace", "--jobs", "1", "--out", dir});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("2 points to compute, 1 already done"), std::string::npos) << again.out;
}

// The shipped neighbour sweep: the neighbour job's step in its own columns, empty where the
// point has no neighbour, the same through the traced evaluator (its JSON) as in process.
TEST(SweepCli, NeighbourColumnsHoldTheNeighboursStep) {
  const std::string sweep = testing::source_path("scenarios/sweeps/llama3-8b-noisy-neighbour.ini");
  const std::string plain = fresh_dir("neighbour"), traced = fresh_dir("neighbour-traced");
  const auto a = run_trainsim({"sweep", sweep, "--jobs", "2", "--out", plain});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto b = run_trainsim({"sweep", sweep, "--jobs", "2", "--trace", "--out", traced});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(without_trace_column(csv(traced)), without_trace_column(csv(plain)));
  const auto cells = [](const std::string& line) {
    std::vector<std::string> out;
    std::string cell;
    for (std::istringstream c(line); std::getline(c, cell, ',');) out.push_back(cell);
    return out;
  };
  std::istringstream lines(csv(plain));
  std::string line;
  std::getline(lines, line);
  const std::vector<std::string> header = cells(line);
  const auto at = std::find(header.begin(), header.end(), "neighbour_step_time_s") - header.begin();
  ASSERT_LT(static_cast<size_t>(at) + 1, header.size());
  EXPECT_EQ(header[static_cast<size_t>(at) + 1], "neighbour_tokens_per_s_per_gpu");
  int with = 0, without = 0;
  while (std::getline(lines, line)) {
    const std::vector<std::string> row = cells(line);
    const bool beside = line.find("neighbour-llama3-70b-dp.ini") != std::string::npos;
    (beside ? with : without) += 1;
    const std::string step = row.size() > static_cast<size_t>(at) ? row[static_cast<size_t>(at)] : "";
    EXPECT_EQ(step.empty(), !beside) << line;
    if (beside) {
      EXPECT_GT(std::stod(step), 1.0) << line;  // the 70B neighbour's step, seconds
    }
  }
  EXPECT_EQ(with, 2);
  EXPECT_EQ(without, 2);
}

// Issue 55: a point over the GPU's memory was "ok" like any other. Now it is simulated (its
// step is there) with status does_not_fit, and the table says fits, capacity and headroom.
TEST(SweepCli, PointsOverTheGpusMemoryAreSaidNotToFit) {
  const std::string sweep = tiny_sweep("cluster.gpu_memory = 80GB, 4GiB\n");
  const std::string dir = fresh_dir("fit");
  const auto r = run_trainsim({"sweep", sweep, "--jobs", "2", "--out", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 points: 1 ok, 1 do not fit in GPU memory, 0 skipped, 0 failed, 0 pending"),
            std::string::npos)
      << r.out;
  // sweep --status counts them the same way.
  const auto status = run_trainsim({"sweep", "--status", dir});
  EXPECT_NE(status.out.find("2 points: 1 ok, 1 do not fit in GPU memory, 0 skipped, 0 failed, 0 never run"),
            std::string::npos)
      << status.out << status.err;
  const std::string text = csv(dir);
  EXPECT_NE(text.find(",ok,,true,8e+10,"), std::string::npos) << text;
  EXPECT_NE(text.find(",does_not_fit,peak memory "), std::string::npos) << text;
  EXPECT_NE(text.find(",false,4294967296,-"), std::string::npos) << text;
  const auto step = column(text, "step_time_s");
  ASSERT_EQ(step.size(), 2u);
  EXPECT_GT(step[1], 0);  // simulated all the same
  const auto headroom = column(text, "headroom_bytes");
  const auto peak = column(text, "peak_memory_bytes");
  EXPECT_DOUBLE_EQ(headroom[0], 80e9 - peak[0]);
}

TEST(SweepCli, BadSweepFileExits2WithOneLine) {
  const std::string sweep = tiny_sweep("parallel.tpp = 1,2\n");
  const auto r = run_trainsim({"sweep", sweep, "--out", fresh_dir("bad")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("vary.parallel.tpp"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'parallel.tp'"), std::string::npos) << r.err;
}

TEST(SweepCli, BadOptionsExit2) {
  const std::string sweep = tiny_sweep("parallel.tp = 1\n");
  EXPECT_EQ(run_trainsim({"sweep", sweep, "--jobs", "0"}).exit_code, 2);
  EXPECT_EQ(run_trainsim({"sweep", sweep, "--shard", "3/2"}).exit_code, 2);
  EXPECT_EQ(run_trainsim({"sweep"}).exit_code, 2);
  EXPECT_EQ(run_trainsim({"sweep", "--merge", fresh_dir("nothing")}).exit_code, 2);
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

// A checkpoint-interval sweep: every point runs the run-level simulation too (in processes
// of its own), and its run_ columns hold the goodput; step-only points leave them empty.
TEST(SweepCli, CheckpointIntervalSweepRunsTheRunLevelSimulation) {
  const std::string base = testing::write_temp_file(
      "tiny-run.ini", testing::tiny_scenario_text() + "[run]\nduration = 20d\n[failures]\nmtbf = 6h\n");
  const std::string sweep = testing::write_temp_file(
      "ckpt.ini", "[sweep]\nbase = " + base + "\n[vary]\ncheckpoint.interval = 1min..64min x4\n");
  const std::string one = fresh_dir("ckpt1"), two = fresh_dir("ckpt2");
  const auto a = run_trainsim({"sweep", sweep, "--jobs", "1", "--out", one});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto b = run_trainsim({"sweep", sweep, "--jobs", "2", "--out", two});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(csv(one), csv(two));
  // The goodput column, by interval: it rises to an optimum and falls after it.
  const std::vector<double> ettr = column(csv(one), "run_effective_training_time_ratio");
  ASSERT_EQ(ettr.size(), 4u);  // 1, 4, 16, 64 minutes
  const auto best = std::max_element(ettr.begin(), ettr.end()) - ettr.begin();
  EXPECT_GT(best, 0);
  EXPECT_LT(best, 3);
  // Without [run] duration the run_ cells are empty.
  const std::string step_only = fresh_dir("steponly");
  ASSERT_EQ(run_trainsim({"sweep", tiny_sweep("training.grad_accum = 1,2\n"), "--out", step_only}).exit_code, 0);
  EXPECT_NE(csv(step_only).find(",,"), std::string::npos);
}

// Issue 18's scale sweep as shipped: Llama 3 405B from 16,384 to 1,048,576 GPUs (cluster.nodes
// = 2048..131072 x2) completes, every point ok, the step lengthening only slightly with the
// cluster (weak scaling: longer gradient rings, mostly hidden by the backward; a stage's
// bucket reductions queue one behind the other, so the largest cluster's rings, with 8,191
// latency steps each, show by under 2 %). Not strictly step by step: a longer ring shifts
// when the queued buckets load the NICs the pipeline sends share (131,072 GPUs 0.03 %
// slower than 262,144). A few seconds since the gradient legs' reduction (bench/README.md).
TEST(SweepCli, LlamaClusterSizeSweepTo1048576GpusCompletes) {
  const std::string out = fresh_dir("cluster-size");
  const auto r = run_trainsim(
      {"sweep", std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/sweeps/llama3-405b-cluster-size.ini", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("7 points: 7 ok, 0 skipped, 0 failed, 0 pending"), std::string::npos) << r.out;
  const std::vector<double> steps = column(csv(out), "step_time_s");
  ASSERT_EQ(steps.size(), 7u);
  for (size_t i = 1; i < steps.size(); ++i) {
    EXPECT_GT(steps[i], steps[0]);
    EXPECT_LT(steps[i], steps[0] * 1.02);
  }
  EXPECT_GT(steps.back(), steps[steps.size() - 2]);
}

}  // namespace
}  // namespace trainsim
