// A file trainsim writes for a user or itself to read back keeps each comment on its line,
// whatever the path or argument it quotes: a line end in a scenario's or a log's name, or in a
// Megatron argument trainsim does not model, ended the comment there and made the rest a line
// of the file. The plan's rank-1.ini was refused by `run`, a fabric calibration by `collective`,
// and an imported scenario took a key from an argument it said it did not model.

#include <gtest/gtest.h>


#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/core/comment_line.hpp"
#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using testing::run_trainsim;
using testing::source_path;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

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

}  // namespace
}  // namespace trainsim
