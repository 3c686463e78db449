// What a user owns stays theirs (issue 54), through the real executable: an output that is one
// of the command's inputs is refused, a results folder of the user's is refused rather than
// written into or cleaned, only trainsim's own temporaries are ever removed, and a failed
// write on standard output is an error, not success.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using testing::run_trainsim;
using testing::slurp;
using testing::run_trainsim_after;
using testing::source_path;

const std::string k_tiny = source_path("tests/trace/tiny.ini");

void expect_one_line_error(const testing::RunResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

// This host's name and the pid of a child that has already exited: a writer that is gone.
struct GoneWriter {
  std::string host;
  pid_t pid = 0;
};

GoneWriter gone_writer() {
  char host[256] = {};
  EXPECT_EQ(::gethostname(host, sizeof host - 1), 0);
  const pid_t pid = ::fork();
  EXPECT_GE(pid, 0);
  if (pid == 0) ::_exit(0);
  EXPECT_EQ(::waitpid(pid, nullptr, 0), pid);
  return {host, pid};
}

// .trainsim-tmp.NAME.HOST.PID.tmp in `folder`, as a writer leaves it mid-write.
fs::path writer_temporary(const fs::path& folder, const std::string& name, const std::string& host, pid_t pid) {
  const fs::path p = folder / (".trainsim-tmp." + name + "." + host + "." + std::to_string(pid) + ".tmp");
  std::ofstream(p) << "half";
  return p;
}

// A copy of the tiny scenario in a folder of the test's own.
fs::path scenario_copy(const fs::path& dir) {
  const fs::path s = dir / "job.ini";
  fs::copy_file(k_tiny, s);
  return s;
}

TEST(Ownership, TraceNamingTheScenarioIsRefusedAndTheScenarioKept) {
  const fs::path dir = testing::fresh_test_dir("own_self");
  const fs::path s = scenario_copy(dir);
  const std::string text = slurp(s);
  fs::create_symlink("job.ini", dir / "latest.ini");
  for (const std::string option : {"--trace", "--chrome-trace"})
    for (const fs::path& out : {s, dir / "latest.ini"}) {
      SCOPED_TRACE(option + " " + out.string());
      expect_one_line_error(run_trainsim({"run", s.string(), option, out.string()}),
                            option + " = '" + out.string() + "': is the input '" + s.string() + "'");
    }
  expect_one_line_error(run_trainsim({"topology", s.string(), "--dot", s.string()}), "is the input");
  expect_one_line_error(run_trainsim({"drill", s.string(), "--steps", "2", "--trace", s.string()}), "is the input");
  EXPECT_EQ(slurp(s), text);
  EXPECT_TRUE(fs::is_symlink(dir / "latest.ini"));
}

TEST(Ownership, TraceNamingTheCalibrationTableIsRefused) {
  const fs::path dir = testing::fresh_test_dir("own_table");
  const fs::path table = dir / "kernels.csv";
  fs::copy_file(source_path("kernels/calibration/h100-sxm.csv"), table);
  const std::string bytes = slurp(table);
  const fs::path s = dir / "job.ini";
  std::ofstream(s) << slurp(k_tiny) << "\n";
  const auto r = run_trainsim({"run", s.string(), "--set", "cluster.calibration=kernels.csv", "--chrome-trace",
                               table.string()});
  expect_one_line_error(r, "is the input '" + (dir / "kernels.csv").string() + "'");
  EXPECT_EQ(slurp(table), bytes);
}

// The files a scenario's keys read are inputs too: a Hugging Face config.json (model.from) and a
// model preset file of the user's (model.preset = PATH).
TEST(Ownership, TraceNamingAFileTheScenarioReadsIsRefused) {
  const fs::path dir = testing::fresh_test_dir("own_read");
  const fs::path config = dir / "config.json";
  fs::copy_file(source_path("scenarios/hf/Llama-3.1-70B/config.json"), config);
  const fs::path preset = dir / "my-model.ini";
  fs::copy_file(source_path("models/presets/llama3-8b.ini"), preset);
  for (const auto& [key, file] : {std::pair{std::string("from"), config}, std::pair{std::string("preset"), preset}}) {
    SCOPED_TRACE(key);
    const std::string bytes = slurp(file);
    const fs::path s = dir / ("job-" + key + ".ini");
    std::ofstream(s) << "[model]\n" << key << " = " << file.filename().string() << "\nseq_len = 512\nlayers = 4\n"
                     << "[training]\nmicro_batch = 1\ngrad_accum = 4\n[parallel]\ntp = 8\n[cluster]\npreset = "
                     << "dgx-h100\nnodes = 1\n";
    expect_one_line_error(run_trainsim({"run", s.string(), "--chrome-trace", file.string()}),
                          "is the input '" + file.string() + "'");
    // drill checked its --trace against the scenario file alone: it wrote over the config, exit 0.
    expect_one_line_error(run_trainsim({"drill", s.string(), "--steps", "2", "--trace", file.string()}),
                          "is the input '" + file.string() + "'");
    EXPECT_EQ(slurp(file), bytes);
  }
  // The neighbour job's scenario (variations.neighbour), given in the file or by --set: run's
  // --trace and --chrome-trace, topology's --dot and drill's --trace wrote over it, exit 0.
  const fs::path neighbour = dir / "neighbour.ini";
  fs::copy_file(k_tiny, neighbour);
  const std::string bytes = slurp(neighbour);
  const fs::path s = dir / "job-beside.ini";
  std::ofstream(s) << slurp(k_tiny) << "\n[variations]\nneighbour = neighbour.ini\n";
  const std::string n = neighbour.string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", s.string(), "--trace", n},
        std::vector<std::string>{"run", s.string(), "--chrome-trace", n},
        std::vector<std::string>{"run", k_tiny, "--set", "variations.neighbour=" + n, "--chrome-trace", n},
        std::vector<std::string>{"topology", s.string(), "--dot", n},
        std::vector<std::string>{"drill", s.string(), "--steps", "2", "--trace", n}}) {
    SCOPED_TRACE(args[0] + " " + args[args.size() - 2]);
    expect_one_line_error(run_trainsim(args), "is the input '" + n + "'");
  }
  EXPECT_EQ(slurp(neighbour), bytes);
}

// replay reads an export's manifest and comm_groups.json beside the rank traces, and checks
// each rank against the manifest: they are inputs too. Written over, the export no longer
// replayed ("not the manifest of a trainsim export").
TEST(Ownership, ReplayOutputNamingTheExportsManifestOrGroupsIsRefused) {
  const fs::path dir = testing::fresh_test_dir("own_replay");
  const fs::path exported = dir / "export";
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--chakra-out", exported.string()}).exit_code, 0);
  const std::string prefix = (exported / "step").string();
  for (const std::string name : {"chakra-export.json", "comm_groups.json"})
    for (const std::string option : {"--trace", "--chrome-trace"}) {
      SCOPED_TRACE(option + " " + name);
      const fs::path file = exported / name;
      const std::string bytes = slurp(file);
      expect_one_line_error(run_trainsim({"replay", prefix, "--nodes", "4", option, file.string()}),
                            option + " = '" + file.string() + "': is the input '" + file.string() + "'");
      EXPECT_EQ(slurp(file), bytes);
    }
  EXPECT_EQ(run_trainsim({"replay", prefix, "--nodes", "4"}).exit_code, 0);
}

// Two outputs of one command naming one file, or a file in the folder of a folder output:
// before, the later write silently replaced the earlier (`--trace x --chrome-trace x` kept the
// Chrome trace only, exit 0), and `--chakra-out D` moved whatever else had been written into D
// (the Kineto traces, the HDF5 trace) aside into a hidden folder, having said it wrote them.
TEST(Ownership, OutputsNamingOneAnotherAreRefusedBeforeAnyWork) {
  const fs::path dir = testing::fresh_test_dir("own_outputs");
  const fs::path folder = dir / "traces";
  fs::create_directories(folder);
  const std::string x = (dir / "x.out").string();
  std::ofstream(x) << "earlier";
  fs::create_symlink("x.out", dir / "link.out");
  const std::string d = folder.string();
  const std::string in_d = (folder / "t.h5").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", k_tiny, "--trace", x, "--chrome-trace", x}, "--chrome-trace = '" + x + "': is also --trace's file"},
      {{"run", k_tiny, "--trace", x, "--chrome-trace", (dir / "link.out").string()}, "is also --trace's file"},
      {{"run", k_tiny, "--kineto-out", d, "--chakra-out", d + "/"}, "is also --kineto-out's folder"},
      {{"run", k_tiny, "--trace", in_d, "--chakra-out", d}, "--chakra-out = '" + d + "': holds --trace's file"},
      {{"run", k_tiny, "--chrome-trace", in_d, "--kineto-out", d}, "holds --chrome-trace's file"},
      {{"run", k_tiny, "--kineto-out", (folder / "k").string(), "--chakra-out", d}, "holds --kineto-out's folder"},
  };
  for (const auto& [args, needle] : cases) {
    SCOPED_TRACE(args[2] + " " + args[4]);
    expect_one_line_error(run_trainsim(args), needle);
  }
  const fs::path exported = dir / "export";
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--chakra-out", exported.string()}).exit_code, 0);
  expect_one_line_error(
      run_trainsim({"replay", (exported / "step").string(), "--nodes", "4", "--trace", x, "--chrome-trace", x}),
      "is also --trace's file");
  EXPECT_EQ(slurp(x), "earlier");
  EXPECT_TRUE(fs::is_empty(folder));
  // Nothing hidden beside them either (a set moved aside, a temporary).
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    EXPECT_NE(e.path().filename().string().rfind(".trainsim-tmp.", 0), 0u) << e.path();
}

TEST(Ownership, AFolderOfTheUsersIsRefusedAndLeftAsItWas) {
  const fs::path dir = testing::fresh_test_dir("own_folder");
  const fs::path mine = dir / "mine";
  fs::create_directories(mine);
  std::ofstream(mine / "notes.tmp") << "draft";
  std::ofstream(mine / "results.csv") << "my own table";
  const fs::path sweep = dir / "sweep.ini";
  std::ofstream(sweep) << "[sweep]\nbase = " << k_tiny << "\n[vary]\ncluster.nodes = 4, 8\n";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"batch", k_tiny, "--out", mine.string()},
        std::vector<std::string>{"sweep", sweep.string(), "--out", mine.string()},
        std::vector<std::string>{"sweep", sweep.string(), "--slurm", "--out", mine.string()}}) {
    SCOPED_TRACE(args.front());
    expect_one_line_error(run_trainsim(args), "is not a trainsim output folder (no sweep-points.json)");
  }
  EXPECT_EQ(slurp(mine / "notes.tmp"), "draft");
  EXPECT_EQ(slurp(mine / "results.csv"), "my own table");
  EXPECT_EQ(std::distance(fs::directory_iterator(mine), fs::directory_iterator()), 2);
}

TEST(Ownership, AnEmptyFolderOrOneOfOursIsUsedAndTheUsersTmpFilesKept) {
  const fs::path dir = testing::fresh_test_dir("own_ours");
  const fs::path out = dir / "results";
  fs::create_directories(out);
  ASSERT_EQ(run_trainsim({"batch", k_tiny, "--jobs", "1", "--out", out.string()}).exit_code, 0);
  // Files a user put into the folder since, and a killed writer's temporary of ours.
  std::ofstream(out / "notes.tmp") << "draft";
  std::ofstream(out / "points" / "000000.json.1234.tmp") << "mine";
  std::ofstream(out / ".trainsim-tmp.results.csv.node3.4321.tmp") << "half";
  const auto r = run_trainsim({"batch", k_tiny, "--jobs", "1", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(out / "notes.tmp"), "draft");
  EXPECT_EQ(slurp(out / "points" / "000000.json.1234.tmp"), "mine");
  EXPECT_FALSE(fs::exists(out / ".trainsim-tmp.results.csv.node3.4321.tmp"));
}

// A clean-up removes the temporaries of writers that are gone, never those of a process still
// writing on this host: a second sweep or batch into the same folder, or `sweep --merge` beside
// a running one, removed the first one's temporaries, whose rename then failed ("cannot rename
// ... into place: No such file or directory", exit 2).
TEST(Ownership, ARunningWritersTemporariesAreKept) {
  const fs::path dir = testing::fresh_test_dir("own_running");
  const fs::path out = dir / "results";
  ASSERT_EQ(run_trainsim({"batch", k_tiny, "--jobs", "1", "--out", out.string()}).exit_code, 0);
  const auto [host, gone] = gone_writer();
  const auto temporary = [&host = host](const fs::path& folder, const std::string& name, pid_t pid) {
    return writer_temporary(folder, name, host, pid);
  };
  // This test's process stands for the other writer: it runs while trainsim cleans up.
  const fs::path running_table = temporary(out, "results.csv", ::getpid());
  const fs::path running_point = temporary(out / "points", "000000.json", ::getpid());
  const fs::path gone_table = temporary(out, "results.h5", gone);
  const fs::path gone_point = temporary(out / "points", "000000.json", gone);
  ASSERT_EQ(run_trainsim({"batch", k_tiny, "--jobs", "1", "--out", out.string()}).exit_code, 0);
  EXPECT_TRUE(fs::exists(running_table));
  EXPECT_TRUE(fs::exists(running_point));
  EXPECT_FALSE(fs::exists(gone_table));
  EXPECT_FALSE(fs::exists(gone_point));
  const fs::path gone_again = temporary(out, "results.csv", gone);
  ASSERT_EQ(run_trainsim({"sweep", "--merge", out.string()}).exit_code, 0);
  EXPECT_TRUE(fs::exists(running_table));
  EXPECT_FALSE(fs::exists(gone_again));
}

// What a run killed mid-write leaves (SIGTERM during `run --trace T`: .trainsim-tmp.T.HOST.PID.tmp
// beside T; during `--kineto-out DIR`: one inside DIR) stayed for good, and DIR was refused from
// then on ("holds '.trainsim-tmp...'"). The next command writing that output removes them, and
// nothing else: another name, another host, a writer still running, a user's `*.tmp`.
TEST(Ownership, AKilledWritersTemporariesGoWithTheNextWrite) {
  const fs::path dir = testing::fresh_test_dir("own_killed");
  const auto [host, gone] = gone_writer();
  const auto temporary = writer_temporary;
  const fs::path left = temporary(dir, "t.h5", host, gone);
  const fs::path running = temporary(dir, "t.h5", host, ::getpid());
  const fs::path elsewhere = temporary(dir, "t.h5", "node7", gone);
  const fs::path other_name = temporary(dir, "u.h5", host, gone);
  std::ofstream(dir / "t.h5.tmp") << "mine";
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--trace", (dir / "t.h5").string()}).exit_code, 0);
  EXPECT_FALSE(fs::exists(left));
  for (const fs::path& kept : {running, elsewhere, other_name, dir / "t.h5.tmp"}) EXPECT_TRUE(fs::exists(kept)) << kept;

  const fs::path kineto = dir / "kineto";
  fs::create_directories(kineto);
  temporary(kineto, "rank-0.pt.trace.json", host, gone);
  const auto k = run_trainsim({"run", k_tiny, "--kineto-out", kineto.string()});
  ASSERT_EQ(k.exit_code, 0) << k.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(kineto), fs::directory_iterator()), 2);  // ranks 0 and 4
  const fs::path busy = dir / "busy";
  fs::create_directories(busy);
  temporary(busy, "rank-0.pt.trace.json", host, ::getpid());
  expect_one_line_error(run_trainsim({"run", k_tiny, "--kineto-out", busy.string()}), "holds '.trainsim-tmp.");
}

// A run killed mid-export (`run --chakra-out DIR`, SIGTERM or kill -9) left its half-written set
// in .trainsim-tmp.DIR.HOST.PID.tmp beside DIR for good: the next export into DIR removes it,
// the names an export writes and then the folder, and nothing else (a file someone put there,
// another host's set, a running writer's, another folder's). An earlier export the killed run
// had moved aside (.trainsim-tmp.DIR.replaced.HOST.PID.tmp) goes back to DIR when DIR is missing.
TEST(Ownership, AKilledExportersHalfSetGoesWithTheNextExport) {
  const fs::path dir = testing::fresh_test_dir("own_killed_export");
  const auto [host, gone] = gone_writer();
  const auto set = [&](const std::string& name, const std::string& on, pid_t pid) {
    const fs::path folder = dir / (".trainsim-tmp." + name + "." + on + "." + std::to_string(pid) + ".tmp");
    fs::create_directories(folder);
    std::ofstream(folder / "step.0.et") << "half";
    writer_temporary(folder, "step.1.et", on, pid);
    return folder;
  };
  const fs::path left = set("out", host, gone);
  const fs::path kept_file = set("out2", host, gone);
  std::ofstream(kept_file / "notes.txt") << "mine";
  const fs::path running = set("out", host, ::getpid());
  const fs::path elsewhere = set("out", "node7", gone);
  const fs::path other_name = set("other", host, gone);
  const auto r = run_trainsim({"run", k_tiny, "--chakra-out", (dir / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(left));
  for (const fs::path& kept : {running, elsewhere, other_name}) EXPECT_TRUE(fs::exists(kept / "step.0.et")) << kept;
  EXPECT_TRUE(fs::exists(dir / "out" / "chakra-export.json"));

  const auto r2 = run_trainsim({"run", k_tiny, "--chakra-out", (dir / "out2").string()});
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_EQ(slurp((kept_file / "notes.txt").string()), "mine");
  EXPECT_FALSE(fs::exists(kept_file / "step.0.et"));

  // Killed between its renames: DIR missing, the earlier export aside.
  const fs::path aside = dir / (".trainsim-tmp.out.replaced." + host + "." + std::to_string(gone) + ".tmp");
  fs::rename(dir / "out", aside);
  const std::string manifest = slurp((aside / "chakra-export.json").string());
  ASSERT_EQ(run_trainsim({"memory", k_tiny}).exit_code, 0);  // no export: nothing is touched
  EXPECT_TRUE(fs::exists(aside));
  // Refused after --chakra-out's check (--kineto-out names a file): the export is back, not replaced.
  std::ofstream(dir / "a_file") << "mine";
  const auto r3 = run_trainsim({"run", k_tiny, "--chakra-out", (dir / "out").string(), "--kineto-out",
                                (dir / "a_file").string()});
  EXPECT_EQ(r3.exit_code, 2) << r3.err;
  EXPECT_FALSE(fs::exists(aside));
  EXPECT_EQ(slurp((dir / "out" / "chakra-export.json").string()), manifest);
}

TEST(Ownership, SweepOutputNamingItsScenarioIsRefused) {
  const fs::path dir = testing::fresh_test_dir("own_sweep");
  const fs::path out = dir / "results";
  ASSERT_EQ(run_trainsim({"batch", k_tiny, "--jobs", "1", "--out", out.string()}).exit_code, 0);
  // The folder is ours, but its table is now the scenario (a hard link): never written over.
  fs::remove(out / "results.csv");
  fs::copy_file(k_tiny, dir / "job.ini");
  fs::create_hard_link(dir / "job.ini", out / "results.csv");
  const std::string text = slurp(dir / "job.ini");
  expect_one_line_error(run_trainsim({"batch", (dir / "job.ini").string(), "--out", out.string()}),
                        "is the input '" + (dir / "job.ini").string() + "'");
  EXPECT_EQ(slurp(dir / "job.ini"), text);
}

// `sweep --merge DIR` rewrites DIR's tables without the checks a sweep makes first: a
// results.csv linked to the batch's scenario was replaced by the table (exit 0).
TEST(Ownership, MergeTablesLinkedToTheScenarioAreRefused) {
  const fs::path dir = testing::fresh_test_dir("own_merge");
  const fs::path out = dir / "results";
  const fs::path s = scenario_copy(dir);
  ASSERT_EQ(run_trainsim({"batch", s.string(), "--jobs", "1", "--out", out.string()}).exit_code, 0);
  const std::string text = slurp(s);
  for (const std::string table : {"results.csv", "results.h5"}) {
    SCOPED_TRACE(table);
    const fs::path kept = dir / (table + ".kept");
    fs::rename(out / table, kept);
    fs::create_symlink("../job.ini", out / table);
    expect_one_line_error(run_trainsim({"sweep", "--merge", out.string()}),
                          "--merge = '" + (out / table).string() + "': is the input '" + s.string() + "'");
    EXPECT_EQ(slurp(s), text);
    fs::remove(out / table);
    fs::rename(kept, out / table);
  }
  EXPECT_EQ(run_trainsim({"sweep", "--merge", out.string()}).exit_code, 0);
}

// A point file of an earlier run is written over by a rename that follows a symbolic link: a
// link to the scenario made the scenario the point's JSON result (exit 0).
TEST(Ownership, APointFileLinkedToTheScenarioIsRefused) {
  const fs::path dir = testing::fresh_test_dir("own_point_link");
  const fs::path out = dir / "results";
  const fs::path s = scenario_copy(dir);
  ASSERT_EQ(run_trainsim({"batch", s.string(), "--jobs", "1", "--out", out.string()}).exit_code, 0);
  fs::remove(out / "points" / "000000.json");
  fs::create_symlink("../../job.ini", out / "points" / "000000.json");
  std::ofstream(s, std::ios::app) << "# edited: the point is computed again\n";
  const std::string text = slurp(s);
  expect_one_line_error(run_trainsim({"batch", s.string(), "--jobs", "1", "--out", out.string()}),
                        "--out = '" + (out / "points" / "000000.json").string() + "': is the input '" + s.string() + "'");
  EXPECT_EQ(slurp(s), text);
}

TEST(Ownership, StandardOutputThatFailsIsAnErrorNotSuccess) {
  // A full disk (/dev/full: every write fails with ENOSPC) and a closed standard output.
  const std::string full = "exec sh -c 'exec \"$0\" \"$@\" >/dev/full' ";
  const std::string closed = "exec sh -c 'exec \"$0\" \"$@\" >&-' ";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", k_tiny, "--json"}, std::vector<std::string>{"memory", k_tiny},
        std::vector<std::string>{"check", k_tiny}, std::vector<std::string>{"--version"}}) {
    SCOPED_TRACE(args.front());
    const auto r = run_trainsim_after(full, args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(testing::without_caveats(r.err),
              std::string("trainsim: cannot write the results to standard output: ") + std::strerror(ENOSPC) +
                         "\n");
    const auto c = run_trainsim_after(closed, args);
    EXPECT_EQ(c.exit_code, 2) << c.err;
    EXPECT_EQ(testing::without_caveats(c.err),
              std::string("trainsim: cannot write the results to standard output: ") + std::strerror(EBADF) +
                         "\n");
  }
}

// A caveat, a warning or an error that cannot be written on standard error never reached the
// user: `run default.ini 2>/dev/full` (its accuracy caveat lost) ended 0. It ends 2; a command
// that fails keeps its own code, and one with nothing to say on stderr still succeeds.
TEST(Ownership, StandardErrorThatFailsIsAnErrorNotSuccess) {
  const std::string full = "exec sh -c 'exec \"$0\" \"$@\" 2>/dev/full' ";
  const std::string closed = "exec sh -c 'exec \"$0\" \"$@\" 2>&-' ";
  const std::vector<std::string> cautioned = {"run", source_path("scenarios/default.ini")};  // says its caveat
  ASSERT_NE(run_trainsim(cautioned).err.find("caveat"), std::string::npos);
  for (const std::string& prefix : {full, closed}) {
    SCOPED_TRACE(prefix);
    const auto r = run_trainsim_after(prefix, cautioned);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.out.find("step time"), std::string::npos) << r.out;
    EXPECT_EQ(run_trainsim_after(prefix, {"run", k_tiny + ".missing"}).exit_code, 2);
    EXPECT_EQ(run_trainsim_after(prefix, {"--version"}).exit_code, 0);
  }
}

}  // namespace
}  // namespace trainsim
