// Sweep files: the plan they give (cross and zip, in order), and one test per bad file.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/sweep/engine_identity.hpp"
#include "sim/sweep/sweep_plan.hpp"
#include "sim/sweep/sweep_spec.hpp"
#include "support/run_trainsim.hpp"

namespace trainsim::sweep {
namespace {

std::string sweep_file(const std::string& body) {
  const std::string base = testing::write_temp_file("base.ini", "[model]\npreset = llama3-8b\n");
  return testing::write_temp_file("sweep.ini", "[sweep]\nbase = " + base + "\n" + body);
}

TEST(SweepSpec, CrossProductFirstKeySlowest) {
  const SweepPlan plan = sweep_plan(
      read_sweep_file(sweep_file("[vary]\ncluster.nodes = 1,2\nparallel.tp = 1,2,4\n[set]\nrun.seed = 3\n")), "test");
  ASSERT_EQ(plan.points.size(), 6u);
  EXPECT_EQ(plan.parameter_names, (std::vector<std::string>{"cluster.nodes", "parallel.tp"}));
  EXPECT_EQ(plan.points[0].values, (std::vector<std::string>{"1", "1"}));
  EXPECT_EQ(plan.points[2].values, (std::vector<std::string>{"1", "4"}));
  EXPECT_EQ(plan.points[3].values, (std::vector<std::string>{"2", "1"}));
  EXPECT_EQ(plan.points[5].overrides, (std::vector<std::string>{"run.seed=3", "cluster.nodes=2", "parallel.tp=4"}));
  for (size_t i = 0; i < plan.points.size(); ++i) EXPECT_EQ(plan.points[i].index, static_cast<int>(i));
  EXPECT_NE(plan.points[0].fingerprint, plan.points[1].fingerprint);
}

TEST(SweepSpec, ZipPairsValues) {
  const SweepPlan plan =
      sweep_plan(read_sweep_file(sweep_file("mode = zip\n[vary]\ncluster.nodes = 1,2,4\nparallel.tp = 8,4,2\n")), "test");
  ASSERT_EQ(plan.points.size(), 3u);
  EXPECT_EQ(plan.points[1].values, (std::vector<std::string>{"2", "4"}));
}

TEST(SweepSpec, ManifestRoundTrips) {
  const SweepPlan plan = sweep_plan(read_sweep_file(sweep_file("[vary]\ncluster.nodes = 1,2\n")), "test");
  const SweepPlan back = parse_plan(plan_json(plan), "m");
  ASSERT_EQ(back.points.size(), 2u);
  EXPECT_EQ(back.points[1].fingerprint, plan.points[1].fingerprint);
  EXPECT_EQ(back.points[1].overrides, plan.points[1].overrides);
}

// What computes a point is part of its fingerprint (engine_identity.hpp): the same sweep under
// another build or data folder is not reused as this one's.
TEST(SweepSpec, TheEngineIsPartOfTheFingerprint) {
  const SweepSpec spec = read_sweep_file(sweep_file("[vary]\ncluster.nodes = 1,2\n"));
  const SweepPlan a = sweep_plan(spec, "a"), again = sweep_plan(spec, "a"), b = sweep_plan(spec, "b");
  EXPECT_EQ(a.points[1].fingerprint, again.points[1].fingerprint);
  EXPECT_NE(a.points[1].fingerprint, b.points[1].fingerprint);
}

// The identity reads the executable's and the data files' bytes, in a fixed order of their
// relative paths, and nothing else in the folder.
TEST(SweepSpec, EngineIdentityFollowsTheExecutableAndTheDataFiles) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(testing::write_temp_file("engine", "")).concat(".d");
  fs::create_directories(dir / "data" / "presets");
  const auto write = [](const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::trunc) << text; };
  write(dir / "exe", "binary");
  write(dir / "data" / "presets" / "gpu.ini", "peak = 1");
  write(dir / "data" / "table.csv", "a,b");
  const std::string exe = (dir / "exe").string(), data = (dir / "data").string();
  const std::string first = engine_identity(exe, data);
  EXPECT_EQ(first.size(), 16u);
  EXPECT_EQ(engine_identity(exe, data), first);
  write(dir / "data" / "notes.md", "not a data file");
  EXPECT_EQ(engine_identity(exe, data), first);
  write(dir / "data" / "presets" / "gpu.ini", "peak = 2");
  const std::string edited = engine_identity(exe, data);
  EXPECT_NE(edited, first);
  write(dir / "exe", "another binary");
  EXPECT_NE(engine_identity(exe, data), edited);
  EXPECT_NE(engine_identity(exe, ""), engine_identity(exe, data));
}

void expect_rejected(const std::string& body, const std::string& key, const std::string& rule_part) {
  const std::string path = sweep_file(body);
  try {
    read_sweep_file(path);
    ADD_FAILURE() << "accepted: " << body;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.key(), key);
    EXPECT_NE(e.rule().find(rule_part), std::string::npos) << e.rule();
  }
}

TEST(SweepSpec, UnknownScenarioKey) {
  expect_rejected("[vary]\ncluster.node = 1,2\n", "vary.cluster.node", "did you mean 'cluster.nodes'");
}
TEST(SweepSpec, UnknownSweepKey) {
  expect_rejected("mdoe = zip\n[vary]\ncluster.nodes = 1\n", "sweep.mdoe", "'mode'");
}
TEST(SweepSpec, BadMode) {
  expect_rejected("mode = all\n[vary]\ncluster.nodes = 1\n", "sweep.mode", "cross or zip");
}
TEST(SweepSpec, UnknownSection) {
  expect_rejected("[vari]\ncluster.nodes = 1\n", "vari.cluster.nodes", "'vary'");
}
TEST(SweepSpec, NothingToVary) {
  expect_rejected("", "vary", "at least one key");
}
TEST(SweepSpec, ZipOfDifferentLengths) {
  expect_rejected("mode = zip\n[vary]\ncluster.nodes = 1,2\nparallel.tp = 1\n", "vary.parallel.tp", "one length");
}
TEST(SweepSpec, AValueListedTwiceInACrossSweep) {
  expect_rejected("[vary]\ncluster.nodes = 1,2\nparallel.tp = 8,4,8\n", "vary.parallel.tp", "listed twice");
  // zip pairs by position: a repeated value is a point of its own there.
  EXPECT_NO_THROW(read_sweep_file(sweep_file("mode = zip\n[vary]\ncluster.nodes = 1,2\nparallel.tp = 8,8\n")));
}
TEST(SweepSpec, KeyBothVariedAndFixed) {
  expect_rejected("[vary]\ncluster.nodes = 1,2\n[set]\ncluster.nodes = 4\n", "set.cluster.nodes", "also in [vary]");
}
TEST(SweepSpec, GlobalBatchBesideGradAccum) {
  expect_rejected("[vary]\ntraining.grad_accum = 2,4\n[set]\ntraining.global_batch = 64\n", "set.training.global_batch",
                  "also gives training.grad_accum (vary.training.grad_accum)");
}
TEST(SweepSpec, BadRange) {
  expect_rejected("[vary]\ncluster.nodes = 1..8\n", "vary.cluster.nodes", "a..b xK");
}

// A sweep whose base is `base` is refused at sweep.base: the base does not exist.
void expect_missing_base(const std::string& base) {
  const std::string path = testing::write_temp_file("nobase.ini", "[sweep]\nbase = " + base + "\n[vary]\nrun.seed = 1\n");
  try {
    read_sweep_file(path);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "sweep.base");
    EXPECT_NE(e.rule().find("does not exist"), std::string::npos);
  }
}

TEST(SweepSpec, MissingBase) { expect_missing_base("does-not-exist.ini"); }

// Found by tests/fuzz: a name too long for the file system threw filesystem_error (exit 1).
TEST(SweepSpec, BaseNameTooLong) { expect_missing_base(std::string(5000, 'x')); }

// A value its key never takes is an error of the sweep file (issue 19), named as it has it.
TEST(SweepSpec, SetValueItsKeyNeverTakes) {
  expect_rejected("[vary]\ncluster.nodes = 1,2\n[set]\ntraining.grad_accum = abc\n", "set.training.grad_accum",
                  "expected an integer");
}
TEST(SweepSpec, VaryValueItsKeyNeverTakes) {
  expect_rejected("[vary]\ncluster.fabric = ideal,banana\n", "vary.cluster.fabric", "expected one of");
}

// Every shipped sweep reads, and its first point is a valid scenario.
TEST(SweepSpec, ShippedSweepsAreValid) {
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(testing::source_path("scenarios/sweeps"))) {
    if (e.path().extension() != ".ini") continue;
    ++files;
    const SweepPlan plan = sweep_plan(read_sweep_file(e.path().string()), "test");
    ASSERT_FALSE(plan.points.empty()) << e.path();
    EXPECT_NO_THROW(load_scenario(plan.points.front().scenario_path, plan.points.front().overrides)) << e.path();
  }
  EXPECT_GE(files, 2);
}

TEST(SweepSpec, MissingFile) {
  EXPECT_THROW(read_sweep_file("/nonexistent/sweep.ini"), InputError);
}

}  // namespace
}  // namespace trainsim::sweep
