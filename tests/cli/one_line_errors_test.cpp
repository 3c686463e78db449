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

}  // namespace
}  // namespace trainsim
