// An input that cannot be opened is refused with the system's reason: "cannot open the scenario
// file" alone did not say whether the path was wrong, a folder on the way was a file, or the
// file was not readable (issue 54's standard: one line naming the file and the rule).

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using testing::run_trainsim;

void expect_reason(const std::vector<std::string>& args, const std::string& what, const std::string& reason) {
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("cannot open " + what + ": " + reason), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(UnreadableInput, TheSystemsReasonIsSaid) {
  const fs::path dir = testing::fresh_test_dir("unreadable_input");
  const std::string missing = (dir / "no such.ini").string();
  const fs::path file = dir / "file";
  std::ofstream(file) << "[model]\n";
  const std::string under_a_file = (file / "job.ini").string();
  for (const std::string command : {"run", "memory", "plan"}) {
    expect_reason({command, missing}, "the scenario file", "No such file or directory");
    expect_reason({command, under_a_file}, "the scenario file", "Not a directory");
  }
  expect_reason({"import", "megatron", "@" + missing}, "the argument file", "No such file or directory");
  expect_reason({"import", "bridge", missing}, "the recipe", "No such file or directory");
  expect_reason({"calibrate", "--from-profile", missing}, "the profiler trace", "No such file or directory");
  expect_reason({"calibrate", "--from-nccl-tests", missing, "--cluster", "dgx-h100"}, "the nccl-tests log",
                "No such file or directory");
  // replay, a folder given as a log and a missing model.from are refused before they are
  // opened, with their own reasons ("no such file", "is a directory", "is no file").
  if (::geteuid() != 0) {  // root reads a file of mode 000
    const fs::path locked = dir / "locked.ini";
    fs::copy_file(testing::source_path("tests/trace/tiny.ini"), locked);
    fs::permissions(locked, fs::perms::none);
    expect_reason({"run", locked.string()}, "the scenario file", "Permission denied");
  }
}

// A scenario or sweep file whose name is not UTF-8: its name goes into --json, results and
// manifests, and JSON text is UTF-8. `run $'t\xff.ini' --json` (and memory, layer, drill,
// batch) ended 1 with "internal error: [json.exception.type_error.316]"; check --json wrote
// JSON no reader takes. One line naming the file (the byte as \xff) and the rule, exit 2.
TEST(UnreadableInput, AFileNameThatIsNotUtf8IsRefusedNamingIt) {
  const fs::path dir = testing::fresh_test_dir("unreadable_input_utf8");
  const std::string bad = (dir / "t\xff.ini").string();
  fs::copy_file(testing::source_path("tests/trace/tiny.ini"), bad);
  const std::string sweep = (dir / "s\xfe.ini").string();
  std::ofstream(sweep) << "[sweep]\nbase = t\xff.ini\n[vary]\ntraining.grad_accum = 1,2\n";
  const std::vector<std::vector<std::string>> commands = {
      {"run", bad, "--json"},   {"memory", bad, "--json"}, {"check", bad, "--json"},
      {"layer", bad, "--json"}, {"drill", bad, "--json"},  {"batch", bad, "--out", (dir / "b").string()},
      {"sweep", sweep, "--out", (dir / "s").string()}};
  for (const auto& args : commands) {
    const auto r = run_trainsim(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_EQ(r.out, "") << args[0];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("\\x"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("name is not UTF-8"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\xff'), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\xfe'), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir / "b"));
  EXPECT_FALSE(fs::exists(dir / "s"));
}

}  // namespace
}  // namespace trainsim
