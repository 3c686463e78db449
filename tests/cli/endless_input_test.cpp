// Input files that never end or are far too large (sim/core/input_file.hpp), through the real
// CLI under a 1.5 GB address-space limit and a 20 s timeout. A device is refused unread: a sweep's
// point file linked to /dev/zero was read to its 1 GiB cap (6 s, 2.1 GB), and `replay` read
// 512 MiB of it. A regular file past its reader's cap is refused from its size: a sparse 2 GiB
// point file took the same 2.1 GB (an internal error, exit 1, under this limit). The sweep's own
// files are plain files: a FIFO put in place of its manifest made `sweep --status` wait forever.
// A pipe (`<(...)`, a FIFO) is still read, up to the cap.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/address_sanitizer.hpp"
#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

constexpr long k_memory_kib = 1500000;  // 1.5 GB: the process reserves some 1.2 GB at start
constexpr int k_seconds = 20;

const std::string k_default = testing::source_path("scenarios/default.ini");
const std::string k_sweep = testing::source_path("scenarios/sweeps/llama3-70b-parallelism.ini");

class EndlessInput : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef TRAINSIM_UNDER_ASAN
    GTEST_SKIP() << "ulimit -v cannot hold an AddressSanitizer build";
#endif
  }
};

// Exit 2 in time, nothing on stdout, one line holding every one of `words`.
void expect_refused(const std::vector<std::string>& args, const std::vector<std::string>& words,
                    const std::string& before = "") {
  const std::string limits = "ulimit -v " + std::to_string(k_memory_kib) + " && exec timeout -k 5 " +
                             std::to_string(k_seconds) + " ";
  const auto r = testing::run_trainsim_after(before + limits, args);
  ASSERT_NE(r.exit_code, 124) << "timed out";
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const std::string& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << w << " in " << r.err;
}

TEST_F(EndlessInput, DevicesAreRefusedUnread) {
  const fs::path dir = testing::fresh_test_dir("endless_devices");
  const std::string device = "is a character device, not a file or a pipe";
  expect_refused({"run", "/dev/zero"}, {"/dev/zero: the scenario or sweep file " + device});
  expect_refused({"sweep", "/dev/zero"}, {"/dev/zero: the scenario or sweep file " + device});
  expect_refused({"run", k_default, "--set", "cluster.calibration=/dev/zero"},
                 {"/dev/zero: the calibration table " + device});
  expect_refused({"calibrate", "--from-profile", "/dev/zero"}, {"/dev/zero: the profiler trace " + device});
  expect_refused({"import", "megatron", "@/dev/zero"}, {"/dev/zero: the argument file " + device});
  const fs::path rank0 = dir / "w.0.et";
  fs::create_symlink("/dev/zero", rank0);
  expect_refused({"replay", (dir / "w").string()}, {rank0.string() + ": the trace file " + device});
}

// A pipe is read as it comes and refused at the reader's cap; a pipe that ends is a file.
TEST_F(EndlessInput, APipeIsReadUpToTheCap) {
  const fs::path dir = testing::fresh_test_dir("endless_pipe");
  const std::string fifo = (dir / "scenario.ini").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_refused({"run", fifo}, {fifo + ": the scenario or sweep file holds more than 16 MiB"},
                 "(yes > '" + fifo + "' 2>/dev/null &); ");
  const auto r = testing::run_trainsim_after("(cat '" + k_default + "' > '" + fifo + "' &); ", {"check", fifo});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("valid (64 GPUs)"), std::string::npos) << r.out;
}

// A regular file past the cap is refused from its size, unread (a sparse file: no disk used).
TEST_F(EndlessInput, AFileLargerThanTheCapIsRefusedUnread) {
  const fs::path dir = testing::fresh_test_dir("endless_large");
  const fs::path big = dir / "big.ini";
  std::ofstream(big) << "[model]\n";
  fs::resize_file(big, std::uintmax_t{1} << 31);
  expect_refused({"run", big.string()}, {big.string() + ": the scenario or sweep file holds more than 16 MiB"});
  // 512 MiB of it were read, held as the string grew: past this limit, an internal error (exit 1).
  const fs::path rank0 = dir / "w.0.et";
  std::ofstream(rank0) << "x";
  fs::resize_file(rank0, std::uintmax_t{1} << 31);
  expect_refused({"replay", (dir / "w").string()}, {rank0.string() + ": the trace file holds more than 512 MiB"});
}

// The sweep's own files: a device, a FIFO or a huge file where the sweep wrote a plain file.
TEST_F(EndlessInput, TheSweepsOwnFilesArePlainFiles) {
  const fs::path out = testing::fresh_test_dir("endless_sweep") / "out";
  const auto made = testing::run_trainsim({"sweep", k_sweep, "--out", out.string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const fs::path point = out / "points" / "000000.json";
  const fs::path manifest = out / "sweep-points.json";
  const std::string kept = testing::slurp(manifest.string());

  fs::remove(point);
  fs::create_symlink("/dev/zero", point);
  expect_refused({"sweep", k_sweep, "--out", out.string()},
                 {point.string() + ": a file of the sweep's folder is a character device, not a file"});
  fs::remove(point);
  std::ofstream(point) << "{}";
  fs::resize_file(point, std::uintmax_t{1} << 31);
  expect_refused({"sweep", "--status", out.string()},
                 {point.string() + ": a file of the sweep's folder holds more than 1 GiB"});
  fs::remove(point);

  fs::remove(manifest);
  ASSERT_EQ(::mkfifo(manifest.c_str(), 0600), 0);  // no writer: opening it would wait forever
  expect_refused({"sweep", "--status", out.string()},
                 {manifest.string() + ": a file of the sweep's folder is a FIFO (pipe), not a file"});
  fs::remove(manifest);
  std::ofstream(manifest) << kept;
  const auto status = testing::run_trainsim({"sweep", "--status", out.string()});
  EXPECT_EQ(status.exit_code, 1) << status.err;  // not done: the removed point is to compute again
  EXPECT_NE(status.out.find("1 never run"), std::string::npos) << status.out;
}

}  // namespace
}  // namespace trainsim
