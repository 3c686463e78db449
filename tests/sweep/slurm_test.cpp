// The Slurm path end to end on a real single-node Slurm (local_slurm.hpp): `trainsim sweep
// --slurm` writes the job array, sbatch runs the shards and the merge, and the merged table
// equals a local run's. Skips, with the reason, where Slurm cannot be started.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "local_slurm.hpp"
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

}  // namespace
}  // namespace trainsim
