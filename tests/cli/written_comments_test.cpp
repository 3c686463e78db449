// A file trainsim writes for a user or itself to read back keeps each comment on its line,
// whatever the path or argument it quotes: a line end in a scenario's or a log's name, or in a
// Megatron argument trainsim does not model, ended the comment there and made the rest a line
// of the file. The plan's rank-1.ini was refused by `run`, a fabric calibration by `collective`,
// and an imported scenario took a key from an argument it said it did not model. And the
// commands trainsim prints or writes for a user to paste are quoted for the shell.

#include <gtest/gtest.h>

#include <cstdio>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/comment_line.hpp"
#include "sim/core/shell_quote.hpp"
#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using testing::run_trainsim;
using testing::slurp;
using testing::source_path;

// A name that, were its line ends kept, would be a section and a key of the file.
const std::string k_injecting = "x\n[run]\nsteps = 7\n";

TEST(WrittenComments, ControlCharactersAreEscapedOntoOneLine) {
  EXPECT_EQ(comment_line("plain / path.ini"), "plain / path.ini");
  EXPECT_EQ(comment_line("a\nb\r\tc\x1b" "d\x7f"), "a\\nb\\r\\tc\\x1bd\\x7f");
  EXPECT_EQ(comment_line("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 stays
}

TEST(WrittenComments, PlanScenarioFromAPathWithALineEndRuns) {
  const fs::path dir = testing::fresh_test_dir("comments_plan");
  const fs::path scenario = dir / ("job" + k_injecting + ".ini");
  fs::copy_file(source_path("tests/trace/tiny.ini"), scenario);
  const fs::path out = dir / "plan";
  const auto p = run_trainsim({"plan", scenario.string(), "--jobs", "1", "--out", out.string()});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const std::string written = slurp(out / "rank-1.ini");
  EXPECT_NE(written.find("job" + comment_line(k_injecting) + ".ini"), std::string::npos) << written;
  const auto r = run_trainsim({"check", (out / "rank-1.ini").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(WrittenComments, FabricCalibrationFromALogWithALineEndIsRead) {
  const fs::path dir = testing::fresh_test_dir("comments_fabric");
  const fs::path log = dir / ("all_reduce" + std::string("\ncollective = allreduce\n") + ".log");
  fs::copy_file(source_path("tests/data/nccl-tests/gb200-nvl72-all_reduce.log"), log);
  const fs::path table = dir / "fabric.txt";
  const auto c = run_trainsim(
      {"calibrate", "--from-nccl-tests", log.string(), "--cluster", "gb200-nvl72", "--out", table.string()});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const auto r = run_trainsim({"collective", "--op", "allreduce", "--gpus", "72", "--cluster", "gb200-nvl72",
                               "--fabric-calibration", table.string(), "-b", "1M", "-e", "1M"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(WrittenComments, ImportedArgumentNotModelledStaysAComment) {
  const auto r = run_trainsim({"import", "megatron", "--num-layers", "4", "--hidden-size", "512",
                               "--num-attention-heads", "8", "--seq-length", "512", "--micro-batch-size", "1",
                               "--global-batch-size", "8", "--vocab-size", "1024", "--some-setting", k_injecting,
                               "--nodes", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("\n[run]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# not modelled: --some-setting " + comment_line(k_injecting)), std::string::npos) << r.out;
}

TEST(WrittenComments, CheckSaysAPathWithALineEndOnOneLine) {
  const fs::path dir = testing::fresh_test_dir("comments_check");
  const fs::path scenario = dir / ("job" + k_injecting + ".ini");
  fs::copy_file(source_path("tests/trace/tiny.ini"), scenario);
  const auto r = run_trainsim({"check", scenario.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("\n[run]\nsteps = 7"), std::string::npos);
  EXPECT_EQ(r.out.rfind("# " + comment_line(scenario.string()) + ": valid", 0), 0u) << r.out;
}

// What bash makes of `line` (a pasted command) with `trainsim` a function that prints its
// arguments one a line: the words the real command would get, and nothing run from them.
std::vector<std::string> words_bash_reads(const std::string& line) {
  const std::string script = "trainsim() { printf '%s\\n' \"$@\"; }; " + line;
  FILE* p = ::popen(("bash -c " + shell_quoted(script)).c_str(), "r");
  std::vector<std::string> words;
  if (p == nullptr) return words;
  char buf[4096];
  std::string all;
  while (std::fgets(buf, sizeof buf, p) != nullptr) all += buf;
  ::pclose(p);
  std::stringstream in(all);
  for (std::string w; std::getline(in, w);) words.push_back(w);
  return words;
}

// `run --chakra-out DIR` says how to replay the export, and a plan's rank-1.ini how to run it:
// with DIR or the plan's folder named `a $(touch pwned) b`, a pasted line ran `touch` (the
// Slurm status line's defect, issue 54, in two more places).
TEST(PrintedCommands, ReplayAndRunHintsAreQuotedForTheShell) {
  const fs::path dir = testing::fresh_test_dir("printed_commands");
  const std::string name = "a $(touch " + (dir / "pwned").string() + ") `touch " + (dir / "pwned2").string() + "` b";
  const fs::path exported = dir / name;
  const auto r = run_trainsim({"run", source_path("tests/trace/tiny.ini"), "--chakra-out", exported.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::size_t at = r.err.find("(trainsim replay ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string hint = r.err.substr(at + 1, r.err.find(")\n", at) - at - 1);
  EXPECT_EQ(words_bash_reads(hint), (std::vector<std::string>{"replay", (exported / "step").string()}));
  const fs::path plan = dir / ("p " + name);
  ASSERT_EQ(run_trainsim({"plan", source_path("tests/trace/tiny.ini"), "--jobs", "1", "--out", plan.string()})
                .exit_code,
            0);
  const std::string ini = slurp(plan / "rank-1.ini");
  const std::string marker = "simulate it with: ";
  const std::size_t from = ini.find(marker);
  ASSERT_NE(from, std::string::npos) << ini;
  const std::string line = ini.substr(from + marker.size(), ini.find('\n', from) - from - marker.size());
  EXPECT_EQ(words_bash_reads(line), (std::vector<std::string>{"run", (plan / "rank-1.ini").string()}));
  EXPECT_FALSE(fs::exists(dir / "pwned"));
  EXPECT_FALSE(fs::exists(dir / "pwned2"));
}

// A relative folder starting with '-' (`run --chakra-out -ex`, `plan --out -pl`) was printed as
// it was: "trainsim replay -ex/step" and "trainsim run -pl/rank-1.ini", which the commands read as
// options and refused. Printed paths carry "./" then.
TEST(PrintedCommands, APathStartingWithADashIsPrintedAsNoOption) {
  const fs::path dir = testing::fresh_test_dir("printed_dash");
  const std::string in_dir = "cd " + shell_quoted(dir.string()) + " && exec ";
  const auto r = testing::run_trainsim_after(in_dir, {"run", source_path("tests/trace/tiny.ini"), "--chakra-out", "-ex"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::size_t at = r.err.find("(trainsim replay ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string hint = r.err.substr(at + 1, r.err.find(")\n", at) - at - 1);
  const std::vector<std::string> words = words_bash_reads(hint);
  EXPECT_EQ(words, (std::vector<std::string>{"replay", "./-ex/step"}));
  EXPECT_EQ(testing::run_trainsim_after(in_dir, words).exit_code, 0);
  const auto p = testing::run_trainsim_after(in_dir, {"plan", source_path("tests/trace/tiny.ini"), "--jobs", "1", "--out", "-pl"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NE(p.out.find("run the best: trainsim run ./-pl/rank-1.ini\n"), std::string::npos) << p.out;
}

}  // namespace
}  // namespace trainsim
