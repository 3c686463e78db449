// An error is one line on stderr whatever the value it names holds: a path with a line end
// (`trainsim sweep S --slurm --out $'a\nb'`, a scenario named so) printed the value as it was,
// and the message went on over two lines. Control characters are written as C escapes
// (sim/core/comment_line.hpp), the rest of the value as given.

#include <gtest/gtest.h>

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

void expect_one_line(const std::vector<std::string>& args, const std::string& needle) {
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(OneLineErrors, AValueWithALineEndIsEscaped) {
  const fs::path dir = testing::fresh_test_dir("one_line_errors");
  expect_one_line({"run", (dir / "a\nb.ini").string()}, "a\\nb.ini");
  expect_one_line({"memory", testing::source_path("tests/trace/tiny.ini"), "--set", "model.from=x\ny.json"},
                  "x\\ny.json");
  expect_one_line({"run\r\n"}, "unknown command 'run\\r\\n'");
  const fs::path sweep = dir / "s.ini";
  std::ofstream(sweep) << "[sweep]\nbase = " << testing::source_path("tests/trace/tiny.ini")
                       << "\n[vary]\nrun.seed = 1,2\n";
  expect_one_line({"sweep", sweep.string(), "--slurm", "--out", (dir / "x\ny").string()}, "x\\ny");
}

// Bytes that are not UTF-8 (a path of the user's, one made absolute in a folder so named) are
// written as C escapes, \xff, as the file names the readers refuse already were: the raw byte
// reached the terminal (shown as U+FFFD or worse) and every log that kept the line.
TEST(OneLineErrors, BytesThatAreNotUtf8AreEscaped) {
  const std::string tiny = testing::source_path("tests/trace/tiny.ini");
  expect_one_line({"run", tiny, "--trace", "d\xff/t.h5"}, "--trace = 'd\\xff/t.h5'");
  expect_one_line({"run\xff"}, "unknown command 'run\\xff'");
  const fs::path dir = testing::fresh_test_dir("one_line_errors") / "in\xff";
  fs::create_directories(dir);
  const auto r = testing::run_trainsim_after("cd '" + dir.string() + "' && ",
                                             {"memory", tiny, "--set", "model.from=none.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("in\\xff/none.json"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\xff'), std::string::npos) << r.err;
}

}  // namespace
}  // namespace trainsim
