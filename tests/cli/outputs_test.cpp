// Every output path through the real executable: a device or FIFO is written through and
// stays what it was, a link is followed, and a failed write is one line and exit 2 with no
// temporary file left (tests/core/output_file_test.cpp has the writer's own cases). Devices
// are made with mknod in the test's own folder (root, as CI runs; skipped otherwise).

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using testing::run_trainsim;
using testing::run_trainsim_after;
using testing::source_path;

const std::string k_tiny = source_path("tests/trace/tiny.ini");

using testing::make_char_device;
using testing::temporaries_in;

fs::path test_dir() {
  return testing::fresh_test_dir("trainsim_outputs");
}

// One line, no HDF5 diagnostics, no "internal error".
void expect_one_line_error(const testing::RunResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("HDF5-DIAG"), std::string::npos) << r.err;
}

TEST(Outputs, TracesToANullDeviceAreDiscarded) {
  const fs::path dir = test_dir();
  const fs::path null = dir / "null";
  if (!make_char_device(null, 3)) GTEST_SKIP() << "mknod needs root (CI runs as root)";
  const auto r = run_trainsim({"run", k_tiny, "--trace", null.string(), "--chrome-trace", null.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_character_file(null));
  EXPECT_EQ(temporaries_in(dir), 0);
}

TEST(Outputs, EveryWriterLeavesANullDeviceADevice) {
  const fs::path dir = test_dir();
  const fs::path null = dir / "null";
  if (!make_char_device(null, 3)) GTEST_SKIP() << "mknod needs root (CI runs as root)";
  EXPECT_EQ(run_trainsim({"topology", k_tiny, "--dot", null.string()}).exit_code, 0);
  EXPECT_EQ(run_trainsim({"drill", k_tiny, "--steps", "4", "--trace", null.string()}).exit_code, 0);
  EXPECT_TRUE(fs::is_character_file(null));
}

TEST(Outputs, FullDeviceIsOneLineAndExitTwo) {
  const fs::path dir = test_dir();
  const fs::path full = dir / "full";
  if (!make_char_device(full, 7)) GTEST_SKIP() << "mknod needs root (CI runs as root)";
  for (const std::string option : {"--trace", "--chrome-trace"}) {
    SCOPED_TRACE(option);
    expect_one_line_error(run_trainsim({"run", k_tiny, option, full.string()}),
                          "cannot write " + full.string() + ": " + std::strerror(ENOSPC));
  }
  expect_one_line_error(run_trainsim({"topology", k_tiny, "--dot", full.string()}), std::strerror(ENOSPC));
  EXPECT_TRUE(fs::is_character_file(full));
}

TEST(Outputs, TraceIntoAFifoReachesItsReader) {
  const fs::path dir = test_dir();
  const fs::path fifo = dir / "trace.pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto reader = std::async(std::launch::async, [&] {
    std::ifstream in(fifo, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  });
  const auto r = run_trainsim({"run", k_tiny, "--trace", fifo.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string bytes = reader.get();
  EXPECT_EQ(bytes.substr(0, 4), "\x89HDF");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(Outputs, LinkedTraceReplacesTheTargetNotTheLink) {
  const fs::path dir = test_dir();
  fs::create_symlink("kept.h5", dir / "latest.h5");
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--trace", (dir / "latest.h5").string()}).exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(dir / "latest.h5"));
  EXPECT_TRUE(fs::is_regular_file(dir / "kept.h5"));
}

TEST(Outputs, FolderThatRefusesFilesIsOneLine) {
  const auto r = run_trainsim({"run", k_tiny, "--trace", "/proc/x.h5"});
  expect_one_line_error(r, "--trace = '/proc/x.h5'");
}

TEST(Outputs, WriteThatFailsHalfwayIsOneLineAndLeavesNothing) {
  // A file-size limit makes the write fail after its first 64 KiB (EFBIG; the signal it
  // would raise is ignored, so write(2) reports it), as a disk that fills up would.
  const fs::path dir = test_dir();
  for (const std::string option : {"--trace", "--chrome-trace"}) {
    SCOPED_TRACE(option);
    const fs::path path = dir / ("out" + option);
    const auto r = run_trainsim_after("trap '' XFSZ; ulimit -f 64; exec ", {"run", k_tiny, option, path.string()});
    expect_one_line_error(r, "cannot write " + path.string() + ": " + std::strerror(EFBIG));
    EXPECT_FALSE(fs::exists(path));
  }
  EXPECT_EQ(temporaries_in(dir), 0);
}

TEST(Outputs, SweepTablesThroughALinkKeepTheLink) {
  const fs::path dir = test_dir();
  const fs::path out = dir / "results";
  // The folder is a batch's own (a folder of a user's is refused: ownership_test.cpp).
  ASSERT_EQ(run_trainsim({"batch", k_tiny, "--jobs", "1", "--out", out.string()}).exit_code, 0);
  fs::create_directories(dir / "elsewhere");
  fs::remove(out / "results.csv");
  fs::create_symlink("../elsewhere/table.csv", out / "results.csv");
  const auto r = run_trainsim({"batch", k_tiny, "--jobs", "1", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(out / "results.csv"));
  std::ifstream in(dir / "elsewhere" / "table.csv");
  std::string header;
  std::getline(in, header);
  EXPECT_NE(header.find("status"), std::string::npos) << header;
}

// A path that is not UTF-8 in a --json result (plan's scenario files, replay's prefix) ended the
// command with "internal error: [json.exception.type_error.316]" (exit 1) once its work was
// done; the result is written, those bytes as U+FFFD (JSON text is UTF-8).
TEST(Outputs, JsonNamingAPathThatIsNotUtf8) {
  const fs::path plan = test_dir() / "p\xff";
  const auto planned = run_trainsim({"plan", k_tiny, "--jobs", "1", "--top", "1", "--out", plan.string(), "--json"});
  EXPECT_EQ(planned.exit_code, 0) << planned.err;
  EXPECT_TRUE(nlohmann::json::accept(planned.out)) << planned.out;
  EXPECT_NE(planned.out.find("p\xef\xbf\xbd"), std::string::npos) << planned.out;  // U+FFFD
  const fs::path traces = test_dir() / "c\xff";
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--chakra-out", traces.string()}).exit_code, 0);
  const auto replayed = run_trainsim({"replay", (traces / "step").string(), "--json"});
  EXPECT_EQ(replayed.exit_code, 0) << replayed.err;
  EXPECT_TRUE(nlohmann::json::accept(replayed.out)) << replayed.out;
}

// Issue 55: plan writes its best layout as a scenario file into its folder; planning that file
// into the same folder would replace the input, so it is refused before anything is simulated.
TEST(Outputs, PlanNeverWritesItsScenarioOverItsInput) {
  const fs::path out = test_dir() / "plan";
  ASSERT_EQ(run_trainsim({"plan", k_tiny, "--jobs", "1", "--top", "1", "--out", out.string()}).exit_code, 0);
  const fs::path best = out / "rank-1.ini";
  ASSERT_TRUE(fs::exists(best));
  std::ifstream before_in(best);
  const std::string before((std::istreambuf_iterator<char>(before_in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(temporaries_in(out), 0);
  const auto r = run_trainsim({"plan", best.string(), "--jobs", "1", "--top", "1", "--out", out.string()});
  expect_one_line_error(r, "--write-top");
  std::ifstream after_in(best);
  const std::string after((std::istreambuf_iterator<char>(after_in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(after, before);
}

// An output option given an empty name (`--chakra-out "$UNSET"`) was taken as no output by
// run --chakra-out, replay --trace/--chrome-trace, topology --dot and calibrate --out: exit 0 and
// nothing written. It is refused as --trace "" already was: one line, exit 2.
TEST(Outputs, AnEmptyOutputNameIsRefusedNotIgnored) {
  const std::string log = source_path("tests/data/nccl-tests/gb200-nvl72-all_reduce.log");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", k_tiny, "--chakra-out", ""},
        {"replay", "/nonexistent/step", "--trace", ""},
        {"replay", "/nonexistent/step", "--chrome-trace", ""},
        {"topology", k_tiny, "--dot", ""},
        {"calibrate", "--from-nccl-tests", log, "--cluster", "gb200-nvl72", "--out", ""}}) {
    const auto r = run_trainsim(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[args.size() - 2] << ": " << r.err;
    EXPECT_NE(r.err.find(args[args.size() - 2] + ": needs a f"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << args[0];
  }
}

}  // namespace
}  // namespace trainsim
