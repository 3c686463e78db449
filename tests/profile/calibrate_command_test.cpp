// `trainsim calibrate --from-profile`, run as a user would: the atomic --out and one error
// per bad trace (exit 2, one line naming the file and the rule, nothing written) on traces
// the tests generate (kineto_fixture.hpp); the table and summary of the real A100 trace and
// the real AMD and CPU-only traces (../shared/data/profiles/, skipped without them).

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "profile/kineto_fixture.hpp"
#include "profile/trace_support.hpp"
#include "sim/compute/calibration_table.hpp"
#include "support/address_sanitizer.hpp"
#include "support/gzip_bomb.hpp"
#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using testing::run_trainsim;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh, empty folder for one test's outputs.
std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(testing::write_temp_file(name, "")).string() + ".d";
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(CalibrateCommand, WritesATableFromARealTrace) {
  TRAINSIM_SKIP_WITHOUT(testing::control_trace());
  const auto r = run_trainsim({"calibrate", "--from-profile", testing::control_trace()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("# gpu: NVIDIA A100-PG509-200\n", 0), 0U);
  EXPECT_NE(r.out.find("# source: measured (PyTorch profiler trace trace-diff-control-step1011.json.gz)\n"),
            std::string::npos);
  EXPECT_NE(r.out.find("# date_utc: "), std::string::npos);
  EXPECT_NE(r.out.find("# tool: trainsim calibrate --from-profile "), std::string::npos);
  // trainsim's own table reader accepts it (the format; whether the model fits these
  // scattered shapes is sim/compute's business).
  std::istringstream in(r.out);
  const CalibrationTable table = parse_calibration_table(in, "stdout");
  EXPECT_TRUE(table.measured());
  EXPECT_EQ(table.header.at("gpu"), "NVIDIA A100-PG509-200");
  EXPECT_EQ(table.rows.size(), 242U);
  // The summary goes to stderr: what was mapped, and what was not, by kernel.
  EXPECT_NE(r.err.find("mapped: 242 rows, 33.4 % of GPU time (794 of 1575 kernels, copies and memsets"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("27.7 %      7 x ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t (record_param_comms: "
                       "communication)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("AdamFunctor"), std::string::npos);
  EXPECT_NE(r.out.find("# gpu_time_mapped: 33.4 % of GPU time"), std::string::npos);
}

// The generated trace, written as `compression` to a fresh folder's trace.json (one name,
// so that the tables' source lines agree).
std::string gemm_trace_file(const std::string& dir_name, testing::Compression compression) {
  return testing::write_trace(testing::gemm_trace().root(), fresh_dir(dir_name) + "/trace.json", compression);
}

TEST(CalibrateCommand, GzipAndPlainGiveTheSameTable) {
  const auto gz = run_trainsim({"calibrate", "--from-profile", gemm_trace_file("gzip", testing::Compression::gzip)});
  const auto text =
      run_trainsim({"calibrate", "--from-profile", gemm_trace_file("plain", testing::Compression::plain)});
  ASSERT_EQ(gz.exit_code, 0) << gz.err;
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(gz.out.find("\ngemm,tf32,1024,256,2880,1,4e-05,"), std::string::npos) << gz.out;
  EXPECT_EQ(testing::without_run_lines(gz.out), testing::without_run_lines(text.out));
}

TEST(CalibrateCommand, OutIsWrittenWholeUnderATemporaryName) {
  const std::string trace = gemm_trace_file("trace", testing::Compression::gzip);
  const std::string dir = fresh_dir("out");
  const std::string out = dir + "/a100.csv";
  std::ofstream(out) << "old\n";
  struct stat before {};
  ASSERT_EQ(stat(out.c_str(), &before), 0);
  const auto r = run_trainsim({"calibrate", "--from-profile", trace, "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("table: " + out + " (2 rows)"), std::string::npos) << r.err;
  const auto to_stdout = run_trainsim({"calibrate", "--from-profile", trace});
  EXPECT_EQ(testing::without_run_lines(slurp(out)), testing::without_run_lines(to_stdout.out));
  // Renamed into place (a new inode), not rewritten in place; no temporary file left.
  struct stat after {};
  ASSERT_EQ(stat(out.c_str(), &after), 0);
  EXPECT_NE(before.st_ino, after.st_ino);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().filename().string());
  EXPECT_EQ(files, std::vector<std::string>{"a100.csv"});
}

// Exit 2, one line naming the file and the rule, and --out untouched.
void expect_refused(const std::string& trace, const std::string& rule_part) {
  const std::string dir = fresh_dir("refused");
  const std::string out = dir + "/table.csv";
  const auto r = run_trainsim({"calibrate", "--from-profile", trace, "--out", out});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err), 1U) << r.err;
  EXPECT_EQ(r.err.rfind("trainsim: " + trace + ": ", 0), 0U) << r.err;
  EXPECT_NE(r.err.find(rule_part), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir)) << "something was written";
}

TEST(CalibrateCommand, RefusesAFileThatIsNotJson) {
  expect_refused(testing::source_path("kernels/calibration/h200.csv"), "not JSON");
}

TEST(CalibrateCommand, RefusesATraceWithoutGpuEvents) {
  testing::KinetoTrace cpu_only("NVIDIA A100-SXM4-80GB");
  cpu_only.op("aten::mm", 0, 100, {{64, 64}, {64, 64}}, {"float", "float"});
  expect_refused(testing::write_temp_file("cpu-only.json", cpu_only.root().dump()), "no GPU kernel events");
}

TEST(CalibrateCommand, RefusesTheRealCpuOnlyTrace) {
  TRAINSIM_SKIP_WITHOUT(testing::profile_path("cpu-only-rank-34.json.gz"));
  expect_refused(testing::profile_path("cpu-only-rank-34.json.gz"), "no GPU kernel events");
}

TEST(CalibrateCommand, RefusesATraceWithoutCorrelationIds) {
  nlohmann::json trace = testing::gemm_trace().root();
  for (auto& e : trace["traceEvents"])
    if (e.value("cat", "") == "kernel") e["args"].erase("correlation");
  const std::string path = testing::write_temp_file("no-correlation.json", trace.dump());
  expect_refused(path, "args.correlation: none of the 4 GPU kernels has a correlation id");
}

TEST(CalibrateCommand, RefusesAnAmdTrace) {
  nlohmann::json trace = testing::gemm_trace().root();
  trace["deviceProperties"][0]["name"] = "AMD Radeon Graphics";
  expect_refused(testing::write_temp_file("amd.json", trace.dump()),
                 "deviceProperties name = 'AMD Radeon Graphics': an AMD (ROCm) GPU: trainsim's calibration tables "
                 "are for NVIDIA GPUs");
}

// The real AMD MI250 trace (ROCm 6.2): the vendor is recognised in what ROCm writes.
TEST(CalibrateCommand, RefusesTheRealAmdTrace) {
  TRAINSIM_SKIP_WITHOUT(testing::profile_path("amd-mi250-minitoy.json.gz"));
  expect_refused(testing::profile_path("amd-mi250-minitoy.json.gz"),
                 "deviceProperties name = 'AMD Radeon Graphics': an AMD (ROCm) GPU");
}

TEST(CalibrateCommand, NeedsAGpuNameWhenTheTraceHasNone) {
  nlohmann::json trace = testing::gemm_trace().root();
  trace.erase("deviceProperties");
  const std::string path = testing::write_temp_file("no-device.json", trace.dump());
  expect_refused(path, "deviceProperties: missing: the trace does not name its GPU; give it with --gpu NAME");
  const auto named = run_trainsim({"calibrate", "--from-profile", path, "--gpu", "a100-40g"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(named.out.rfind("# gpu: a100-40g\n", 0), 0U);
}

// calibrate writes no table that run would refuse (issue 54): the reader's rules and the GPU's
// peaks are applied to the table before it is written.

// The generated trace with every GEMM kernel's duration set to `dur_us`.
std::string trace_with_gemm_duration(const std::string& name, double dur_us) {
  nlohmann::json trace = testing::gemm_trace().root();
  for (auto& e : trace["traceEvents"])
    if (e.value("cat", "") == "kernel" && e.value("name", "").find("gemm") != std::string::npos) e["dur"] = dur_us;
  return testing::write_temp_file(name, trace.dump());
}

TEST(CalibrateCommand, RefusesAGpuNameWithALineEnd) {
  nlohmann::json trace = testing::gemm_trace().root();
  trace["deviceProperties"][0]["name"] = "NVIDIA A100\nkernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps";
  expect_refused(testing::write_temp_file("gpu-line-end.json", trace.dump()),
                 "deviceProperties name = 'NVIDIA A100\\nkernel,dtype");
  const std::string trace_file = gemm_trace_file("gpu-option", testing::Compression::plain);
  const auto r = run_trainsim({"calibrate", "--from-profile", trace_file, "--gpu", "A100\rB"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err), 1U) << r.err;
  EXPECT_NE(r.err.find("--gpu = 'A100\\rB': a GPU name without control characters"), std::string::npos) << r.err;
}

// The table's `# tool:` line is the command that made it, for a user to run again: the --gpu
// name was put in bare single quotes and the trace's path not quoted at all, so a name holding
// a quote ended the quoting and what followed ran when the line was pasted.
TEST(CalibrateCommand, TheToolLineIsQuotedForTheShell) {
  const std::string dir = fresh_dir("tool line") + "/my traces";
  fs::create_directories(dir);
  const std::string trace = testing::write_trace(testing::gemm_trace().root(), dir + "/trace.json",
                                                 testing::Compression::plain);
  const auto r = run_trainsim({"calibrate", "--from-profile", trace, "--gpu", "A100 'lab' $(touch pwned)"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("# tool: trainsim calibrate --from-profile '" + trace +
                       "' --gpu 'A100 '\\''lab'\\'' $(touch pwned)'\n"),
            std::string::npos)
      << r.out;
}

TEST(CalibrateCommand, RefusesKernelDurationsNearZero) {
  // 1e-300 us: the rates overflow to inf, which the reader refuses as not finite.
  expect_refused(trace_with_gemm_duration("zero-gemm.json", 1e-300), "column 10 (tflops) = 'inf': must be finite");
  // 1e-6 us: a finite rate no GPU trainsim knows reaches (1.5e9 TFLOP/s).
  expect_refused(trace_with_gemm_duration("tiny-gemm.json", 1e-6),
                 "faster than the datasheet peak for tf32 of the fastest GPU trainsim knows");
}

TEST(CalibrateCommand, BoundsRowsByTheNamedGpuPresetsPeaks) {
  // The GEMM (1.5 GFLOP) in 4 us: 377 TFLOP/s, above the A100's TF32 peak of 156 but below the
  // fastest GPU's (1,250): accepted for an unnamed GPU, refused for --gpu a100-80g.
  const std::string trace = trace_with_gemm_duration("fast-gemm.json", 4);
  const auto unnamed = run_trainsim({"calibrate", "--from-profile", trace});
  EXPECT_EQ(unnamed.exit_code, 0) << unnamed.err;
  const auto named = run_trainsim({"calibrate", "--from-profile", trace, "--gpu", "a100-80g"});
  EXPECT_EQ(named.exit_code, 2);
  EXPECT_EQ(named.out, "");
  EXPECT_EQ(lines(named.err), 1U) << named.err;
  EXPECT_NE(named.err.find("(gemm, tf32) = '377.487 TFLOP/s': faster than the datasheet peak for tf32 of a100-80g, "
                           "156 TFLOP/s"),
            std::string::npos)
      << named.err;
}

TEST(CalibrateCommand, NeedsATrace) {
  const auto r = run_trainsim({"calibrate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--from-profile"), std::string::npos) << r.err;
  const auto help = run_trainsim({"--help"});
  EXPECT_NE(help.out.find("  calibrate  a calibration table from a PyTorch profiler trace"), std::string::npos);
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

// kernels/README.md's sample (section "Calibrating from your own PyTorch profiler trace") is what
// the build prints: the summary's first lines, and the rows it quotes.
TEST(CalibrateCommand, ReadmeSampleIsCurrent) {
  TRAINSIM_SKIP_WITHOUT(testing::control_trace());
  std::ifstream in(testing::source_path("kernels/README.md"));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string readme = ss.str();
  const auto begin = readme.find("```\ntrainsim calibrate: ");
  ASSERT_NE(begin, std::string::npos);
  const std::string sample = readme.substr(begin + 4, readme.find("...\n```", begin) - begin - 4);
  const auto r = run_trainsim({"calibrate", "--from-profile", testing::control_trace()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string err = r.err;
  // Paths as the README gives them, from the checkout's root: the shared data as
  // ../shared/data/ wherever this build reads it from.
  const std::string shared = testing::shared_data_path("");
  for (auto at = err.find(shared); at != std::string::npos; at = err.find(shared, at + 1))
    err.replace(at, shared.size(), "../shared/data/");
  const std::string root = testing::source_path("");
  for (auto at = err.find(root); at != std::string::npos; at = err.find(root)) err.erase(at, root.size());
  EXPECT_EQ(err.substr(0, sample.size()), sample);
  const auto rows = readme.find("```\n# 2 calls of aten::linear");
  ASSERT_NE(rows, std::string::npos);
  std::istringstream quoted(readme.substr(rows + 4, readme.find("```", rows + 4) - rows - 4));
  for (std::string line; std::getline(quoted, line);) EXPECT_NE(r.out.find(line + "\n"), std::string::npos) << line;
}

// Issue 54: `--out` naming the trace itself replaced hours of profiling with a table. The
// same file through a symbolic link or a hard link is the input too.
TEST(CalibrateCommand, OutThatIsTheTraceIsRefusedAndTheTraceKept) {
  const std::string trace = gemm_trace_file("self", testing::Compression::gzip);
  const std::string bytes = slurp(trace);
  const std::string link = trace + ".link", hard = trace + ".hard";
  fs::remove(link);
  fs::remove(hard);
  fs::create_symlink(trace, link);
  fs::create_hard_link(trace, hard);
  for (const std::string& out : {trace, link, hard}) {
    SCOPED_TRACE(out);
    const auto r = run_trainsim({"calibrate", "--from-profile", trace, "--out", out});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(lines(r.err), 1U) << r.err;
    EXPECT_NE(r.err.find("--out = '" + out + "': is the input '" + trace + "'"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(trace), bytes);
  }
  EXPECT_TRUE(fs::is_symlink(link));
}

// About 6 MB of gzip inflating to 6 GiB (the case): refused once 256 MiB are inflated,
// in seconds, under a 4 GB address-space limit, with one line.
TEST(CalibrateCommand, GzipBombRefusedAtTheCap) {
#ifdef TRAINSIM_UNDER_ASAN
  GTEST_SKIP() << "ulimit -v cannot hold an AddressSanitizer build";
#endif
  const std::string trace = fresh_dir("bomb") + "/trace.json.gz";
  testing::write_gzip_bomb(trace, std::size_t{6} << 30);
  const auto r = testing::run_trainsim_limited({"calibrate", "--from-profile", trace}, 4'000'000, 20);
  ASSERT_NE(r.exit_code, 124) << "timed out";
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "trainsim: " + trace + ": the profiler trace inflates to more than 256 MiB, the most trainsim reads\n");
}

}  // namespace
}  // namespace trainsim
