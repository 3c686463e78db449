// The resumable runner with test evaluators (no SimGrid: fast): results independent of
// --jobs and of completion order, skipped and failed points, resume after damage, shards
// and merge, and the HDF5 table.

#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"
#include "sim/sweep/point_result.hpp"
#include "sim/sweep/read_file.hpp"
#include "sim/sweep/result_columns.hpp"
#include "sim/sweep/step_summary.hpp"
#include "sim/sweep/sweep_run.hpp"
#include "sim/sweep/sweep_spec.hpp"
#include "support/run_trainsim.hpp"
#include "tiny_scenario.hpp"

namespace trainsim::sweep {
namespace {

namespace fs = std::filesystem;

SweepPlan plan_of(const std::string& vary) {
  const std::string base = testing::write_temp_file("base.ini", "[model]\npreset = llama3-8b\n");
  return sweep_plan(
      read_sweep_file(testing::write_temp_file("sweep.ini", "[sweep]\nbase = " + base + "\n[vary]\n" + vary)), "test");
}

using testing::fresh_dir;

// metric k = (k + 1) * the point's first value; values of 3 are "invalid"; later points
// finish first (so completion order differs from point order with jobs > 1).
PointResult arithmetic(const SweepPoint& p) {
  ::usleep(static_cast<useconds_t>(2000 * (8 - p.index % 8)));
  const double v = std::stod(p.values.front());
  if (v == 3) throw InputError(p.scenario_path, "cluster.nodes", "3", "three is not allowed here");
  PointResult r;
  r.status = PointStatus::ok;
  for (size_t k = 0; k < summary_metric_names().size(); ++k) r.metrics.push_back(static_cast<double>(k + 1) * v + 0.1);
  return r;
}

SweepTally run(const SweepPlan& plan, const std::string& dir, int jobs, const PointEvaluator& e = arithmetic,
               int shard = 0, int shards = 1) {
  SweepRunOptions o;
  o.out_dir = dir;
  o.jobs = jobs;
  o.shard_index = shard;
  o.shard_count = shards;
  return run_sweep(plan, o, e);
}

std::string csv(const std::string& dir) {
  return read_file_or_empty(dir + "/results.csv");
}

TEST(SweepRun, SameResultsWhateverTheJobs) {
  const SweepPlan plan = plan_of("cluster.nodes = 1..8 +1\nparallel.tp = 1,2\n");
  const std::string a = fresh_dir("a"), b = fresh_dir("b");
  const SweepTally ta = run(plan, a, 1);
  const SweepTally tb = run(plan, b, 4);
  EXPECT_EQ(ta.ok, 14);
  EXPECT_EQ(ta.skipped, 2);
  EXPECT_EQ(tb.ok, 14);
  EXPECT_EQ(csv(a), csv(b));
  const std::string text = csv(a);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 17);  // header + 16 points
}

// results.h5 is the same file bit for bit: HDF5 stamped each dataset with the clock, so two
// runs a second apart wrote files that differed in 84 bytes.
TEST(SweepRun, Hdf5TableIsTheSameBitForBit) {
  const SweepPlan plan = plan_of("cluster.nodes = 1..4 +1\n");
  const std::string a = fresh_dir("a"), b = fresh_dir("b");
  run(plan, a, 1);
  ::usleep(1100000);  // the stamps count seconds
  run(plan, b, 2);
  const std::string h5 = read_file_or_empty(a + "/results.h5");
  ASSERT_FALSE(h5.empty());
  EXPECT_TRUE(h5 == read_file_or_empty(b + "/results.h5"));
}

TEST(SweepRun, InvalidPointsAreSkippedWithTheReason) {
  const std::string dir = fresh_dir("out");
  run(plan_of("cluster.nodes = 2,3\n"), dir, 2);
  const std::string text = csv(dir);
  EXPECT_NE(text.find("\n1,3,skipped,"), std::string::npos) << text;
  EXPECT_NE(text.find("three is not allowed here"), std::string::npos) << text;
  EXPECT_NE(text.find("\n0,2,ok,,"), std::string::npos) << text;
}

TEST(SweepRun, ACrashedPointFailsAndIsRetried) {
  const SweepPlan plan = plan_of("cluster.nodes = 1,2\n");
  const std::string dir = fresh_dir("out");
  const SweepTally first = run(plan, dir, 2, [](const SweepPoint& p) {
    if (p.index == 1) std::raise(SIGKILL);
    return arithmetic(p);
  });
  EXPECT_EQ(first.failed, 1);
  EXPECT_NE(csv(dir).find("killed by signal 9"), std::string::npos) << csv(dir);
  const SweepTally second = run(plan, dir, 2);
  EXPECT_EQ(second.reused, 1);
  EXPECT_EQ(second.ok, 2);
  EXPECT_EQ(second.failed, 0);
}

ino_t inode(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

TEST(SweepRun, ResumeKeepsCompletePointsAndRedoesDamagedOnes) {
  const SweepPlan plan = plan_of("cluster.nodes = 1,2,3,4\n");
  const std::string dir = fresh_dir("out");
  run(plan, dir, 2);
  const std::string reference = csv(dir);
  const std::string p0 = dir + "/points/000000.json", p1 = dir + "/points/000001.json";
  const ino_t kept = inode(p0);
  // A point half written by a writer without rename, and a killed writer's temporary.
  const std::string whole = read_file_or_empty(p1);
  std::ofstream(p1, std::ios::trunc) << whole.substr(0, whole.size() / 2);
  const std::string killed = dir + "/points/.trainsim-tmp.000002.json.node7.999.tmp";
  std::ofstream(killed) << "{";
  fs::remove(dir + "/points/000003.json");
  const SweepTally t = run(plan, dir, 2);
  EXPECT_EQ(t.reused, 2);  // 0 (ok) and 2 (skipped); 1 was damaged, 3 missing
  EXPECT_EQ(inode(p0), kept);
  EXPECT_FALSE(fs::exists(killed));
  EXPECT_EQ(csv(dir), reference);
}

// Issue 54: a clean-up of killed writers' temporaries took every `*.tmp` in the folder, a
// user's own included. Only names with trainsim's prefix are its own.
TEST(SweepRun, ResumeKeepsTheUsersOwnTmpFiles) {
  const SweepPlan plan = plan_of("cluster.nodes = 1,2\n");
  const std::string dir = fresh_dir("users-tmp");
  run(plan, dir, 1);
  const std::vector<std::string> users = {dir + "/notes.tmp", dir + "/points/000001.json.999.tmp",
                                          dir + "/.results.csv.tmp"};
  for (const std::string& f : users) std::ofstream(f) << "mine";
  run(plan, dir, 1);
  EXPECT_EQ(merge_sweep(dir).points, 2);
  for (const std::string& f : users) EXPECT_EQ(read_file_or_empty(f), "mine") << f;
}

TEST(SweepRun, ShardsThenMergeGiveTheWholeTable) {
  const SweepPlan plan = plan_of("cluster.nodes = 1..6 +1\n");
  const std::string whole = fresh_dir("whole"), sharded = fresh_dir("sharded");
  run(plan, whole, 2);
  const SweepTally s1 = run(plan, sharded, 1, arithmetic, 0, 2);
  EXPECT_EQ(s1.in_shard, 3);
  EXPECT_EQ(s1.pending, 3);
  run(plan, sharded, 1, arithmetic, 1, 2);
  const SweepTally merged = merge_sweep(sharded);
  EXPECT_EQ(merged.pending, 0);
  EXPECT_EQ(csv(sharded), csv(whole));
  EXPECT_THROW(merge_sweep(fresh_dir("empty")), InputError);
}

TEST(SweepRun, Hdf5TableHasEveryColumn) {
  const std::string dir = fresh_dir("out");
  run(plan_of("cluster.nodes = 2,3,4\n"), dir, 2);
  const hid_t file = H5Fopen((dir + "/results.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t set = H5Dopen2(file, "/metrics/step_time_s", H5P_DEFAULT);
  ASSERT_GE(set, 0);
  std::vector<double> v(3);
  ASSERT_GE(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  EXPECT_DOUBLE_EQ(v[0], 2.1);
  EXPECT_TRUE(std::isnan(v[1]));  // skipped
  EXPECT_DOUBLE_EQ(v[2], 4.1);
  H5Dclose(set);
  for (const char* name :
       {"/point", "/status", "/reason", "/trace", "/params/cluster.nodes", "/validation_family", "/caveats"})
    EXPECT_GT(H5Lexists(file, name, H5P_DEFAULT), 0) << name;
  H5Fclose(file);
}

// Issue 55: a point that does not fit the GPU's memory is simulated all the same (every
// metric), stored as does_not_fit, reused on a rerun, and every table says whether each
// point fits, the GPU's capacity and the headroom, from one column list.
PointResult by_memory(const SweepPoint& p) {
  const double v = std::stod(p.values.front());
  PointResult r;
  r.status = PointStatus::ok;
  r.metrics.assign(summary_metric_names().size(), 1.0);
  for (size_t k = 0; k < summary_metric_names().size(); ++k)
    if (summary_metric_names()[k] == "peak_memory_bytes") r.metrics[k] = v * 1e9;
  r.capacity_bytes = 2.5e9;
  if (v > 2.5) r.status = PointStatus::does_not_fit;
  return r;
}

TEST(SweepRun, PointsThatDoNotFitAreKeptAndSaidInEveryTable) {
  const SweepPlan plan = plan_of("cluster.nodes = 1,2,4\n");
  const std::string dir = fresh_dir("fit");
  const SweepTally t = run(plan, dir, 2, by_memory);
  EXPECT_EQ(t.ok, 2);
  EXPECT_EQ(t.does_not_fit, 1);
  EXPECT_EQ(run(plan, dir, 2, by_memory).reused, 3);  // complete: never recomputed

  const std::string text = csv(dir);
  EXPECT_NE(text.find(",status,reason,fits,capacity_bytes,headroom_bytes,step_time_s,"), std::string::npos) << text;
  EXPECT_NE(text.find(",ok,,true,2.5e+09,1.5e+09,"), std::string::npos) << text;
  EXPECT_NE(text.find(",does_not_fit,,false,2.5e+09,-1.5e+09,"), std::string::npos) << text;

  const hid_t file = H5Fopen((dir + "/results.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  for (const ResultColumn& c : result_columns())
    EXPECT_GT(H5Lexists(file, ("/" + c.name).c_str(), H5P_DEFAULT), 0) << c.name;
  const hid_t set = H5Dopen2(file, "/headroom_bytes", H5P_DEFAULT);
  std::vector<double> v(3);
  ASSERT_GE(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  EXPECT_DOUBLE_EQ(v[2], -1.5e9);
  H5Dclose(set);
  H5Fclose(file);
}

TEST(SweepRun, PointFilesKeepTheFitAndOlderOnesAreRedone) {
  PointResult r;
  r.index = 3;
  r.fingerprint = "f";
  r.status = PointStatus::does_not_fit;
  r.reason = "peak memory 3 GiB per GPU exceeds the GPU's 2 GiB";
  r.metrics.assign(summary_metric_names().size(), 2.0);
  r.capacity_bytes = 2e9;
  const auto back = parse_point_result(point_result_json(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, PointStatus::does_not_fit);
  EXPECT_EQ(back->capacity_bytes, 2e9);
  EXPECT_EQ(back->metrics, r.metrics);
  EXPECT_TRUE(back->complete());
  // A point file of a build before the fit columns has no capacity: it is computed again.
  std::string old = point_result_json(r);
  old.erase(old.find(",\n \"capacity_bytes\""), old.find('}', old.find("\"capacity_bytes\"")) - old.find(",\n \"capacity_bytes\""));
  EXPECT_EQ(old.find("capacity_bytes"), std::string::npos) << old;
  EXPECT_FALSE(parse_point_result(old)) << old;
}

}  // namespace
}  // namespace trainsim::sweep
