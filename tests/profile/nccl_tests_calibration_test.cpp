// `trainsim calibrate --from-nccl-tests`: nccl-tests logs the tests generate from trainsim's
// own model with known parameters are fitted back to them (the fit, and the whole path:
// a known calibration, `trainsim collective` with it, its table as a log, calibrate, the
// parameters again); the published nccl-tests figures of public.md D2 (tests/data/nccl-tests/)
// are fitted and reproduced by `collective`; each bad log is one line naming the file, the
// line and the rule, exit 2, nothing written.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "profile/nccl_tests_fixture.hpp"
#include "sim/core/error.hpp"
#include "sim/profile/nccl_tests_fit.hpp"
#include "sim/profile/nccl_tests_log.hpp"
#include "support/run_trainsim.hpp"
#include "topologies/fabric_calibration.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using profile::NcclTestsLog;
using testing::NcclTestsLogSpec;
using testing::run_trainsim;

std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(testing::write_temp_file(name, "")).string() + ".d";
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string fixture(const std::string& name) { return testing::source_path("tests/data/nccl-tests/" + name); }

NcclTestsLogSpec model_log(CalibratedCollective c, const FittedCollective& f, int ranks) {
  NcclTestsLogSpec spec;
  spec.test = std::string(calibrated_collective_name(c)) + "_perf";
  spec.ranks = ranks;
  spec.bytes = testing::doubling_sizes(1024, 8.0 * (1 << 30));
  spec.time_us = testing::model_times_us(f, c, ranks, spec.bytes);
  return spec;
}

void expect_within(double fitted, double known, double fraction, const std::string& what) {
  EXPECT_NEAR(fitted, known, fraction * known) << what;
}

TEST(NcclTestsFit, GeneratedLogsFitBackTheirParameters) {
  // One log per collective, from trainsim's model with chosen bandwidths and latencies.
  const std::pair<CalibratedCollective, FittedCollective> known[] = {
      {CalibratedCollective::all_reduce, {372e9, 23.5e-6, 0, {}}},
      {CalibratedCollective::all_gather, {355e9, 18.0e-6, 0, {}}},
      {CalibratedCollective::reduce_scatter, {340e9, 21.0e-6, 0, {}}},
      {CalibratedCollective::all_to_all, {330e9, 10.5e-6, 0, {}}},
      {CalibratedCollective::send_recv, {150e9, 8.0e-6, 0, {}}},
  };
  std::vector<NcclTestsLog> logs;
  for (const auto& [c, f] : known)
    logs.push_back(profile::parse_nccl_tests_log(testing::nccl_tests_log_text(model_log(c, f, 8)), "generated.log"));
  const FabricCalibration fit = profile::fit_nccl_tests_logs(logs, "h100-sxm");
  for (const auto& [c, f] : known) {
    const std::string name(calibrated_collective_name(c));
    expect_within(fit[c].bus_bandwidth_Bps, f.bus_bandwidth_Bps, 0.02, name + " bandwidth");
    expect_within(fit[c].fixed_latency_s, f.fixed_latency_s, 0.02, name + " latency");
    EXPECT_EQ(fit[c].ranks, std::vector<int>{8}) << name;
  }
  EXPECT_LT(profile::nccl_tests_fit_worst_error(logs, fit), 0.005);
}

TEST(NcclTestsFit, GroupSizesSeparateTheStepLatency) {
  // All-reduces on 2, 4 and 8 GPUs: fixed + per step x 2(n-1) comes back term by term.
  const FittedCollective known{360e9, 12e-6, 1.5e-6, {}};
  std::vector<NcclTestsLog> logs;
  for (const int n : {2, 4, 8})
    logs.push_back(profile::parse_nccl_tests_log(
        testing::nccl_tests_log_text(model_log(CalibratedCollective::all_reduce, known, n)), "ar.log"));
  const FittedCollective fit = profile::fit_nccl_tests_logs(logs, "h100-sxm")[CalibratedCollective::all_reduce];
  expect_within(fit.bus_bandwidth_Bps, known.bus_bandwidth_Bps, 0.02, "bandwidth");
  expect_within(fit.fixed_latency_s, known.fixed_latency_s, 0.02, "fixed latency");
  expect_within(fit.step_latency_s, known.step_latency_s, 0.02, "step latency");
  EXPECT_EQ(fit.ranks, (std::vector<int>{2, 4, 8}));
}

TEST(NcclTestsFit, OneSizeFitsTheBandwidthAlone) {
  const NcclTestsLog log = profile::read_nccl_tests_log(fixture("h200-all_gather.log"));
  const FittedCollective fit = profile::fit_nccl_tests_logs({log}, "h200")[CalibratedCollective::all_gather];
  EXPECT_NEAR(fit.bus_bandwidth_Bps / 1e9, 361.4, 0.05);
  EXPECT_EQ(fit.fixed_latency_s, 0.0);
}

TEST(NcclTestsLog, ReadsTheHeaderAndTheRows) {
  const NcclTestsLog log = profile::read_nccl_tests_log(fixture("gb200-nvl72-all_reduce.log"));
  EXPECT_EQ(log.test, "all_reduce_perf");
  EXPECT_EQ(log.collective, CalibratedCollective::all_reduce);
  EXPECT_EQ(log.ranks, 72);
  EXPECT_EQ(log.hosts.size(), 18U);
  EXPECT_EQ(log.device, "NVIDIA GB200");
  ASSERT_EQ(log.rows.size(), 5U);
  EXPECT_EQ(log.rows[0].bytes, 536870912.0);
  EXPECT_NEAR(log.rows[0].time_s, 1806.6e-6, 1e-12);
  EXPECT_EQ(log.rows[0].busbw_GBps, 586.10);
}

TEST(NcclTestsLog, AnOldLogIsNamedByItsFileName) {
  NcclTestsLogSpec spec = model_log(CalibratedCollective::all_to_all, {300e9, 10e-6, 0, {}}, 4);
  spec.test_line = false;
  const std::string path = testing::write_temp_file("alltoall_perf_4gpu.txt", testing::nccl_tests_log_text(spec));
  EXPECT_EQ(profile::read_nccl_tests_log(path).collective, CalibratedCollective::all_to_all);
}

// Each broken log: an InputError naming the file, the line where there is one, and the rule.
struct BadLog {
  const char* name;
  const char* from;  ///< replaced in the generated log
  const char* to;
  const char* message;  ///< expected in the error
  bool every = false;   ///< replace every occurrence
};

class NcclTestsBadLog : public ::testing::TestWithParam<BadLog> {};

TEST_P(NcclTestsBadLog, IsOneLineNamingFileLineAndRule) {
  const BadLog& b = GetParam();
  std::string text =
      testing::nccl_tests_log_text(model_log(CalibratedCollective::all_reduce, {370e9, 20e-6, 0, {}}, 8));
  const std::string from = b.from;
  ASSERT_NE(text.find(from), std::string::npos) << from;
  for (auto at = text.find(from); at != std::string::npos; at = b.every ? text.find(from, at + 1) : std::string::npos)
    text.replace(at, from.size(), b.to);
  const std::string path = testing::write_temp_file(std::string("bad_") + b.name + ".log", text);
  const std::string out = fresh_dir(std::string("bad_") + b.name);
  const auto r = run_trainsim({"calibrate", "--from-nccl-tests", path, "--cluster", "dgx-h100", "--out",
                               out + "/fabric.txt"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err.rfind("trainsim: " + path + ": ", 0), 0U) << r.err;
  EXPECT_NE(r.err.find(b.message), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(fs::is_empty(out)) << "nothing written";
}

INSTANTIATE_TEST_SUITE_P(
    Rules, NcclTestsBadLog,
    ::testing::Values(
        BadLog{"broadcast", "starting: all_reduce_perf", "starting: broadcast_perf",
               "line 2 = 'broadcast_perf': calibrate fits all_reduce_perf"},
        BadLog{"two_tests", "# Out of bounds", "# Collective test starting: all_reduce_perf\n# Out of bounds",
               "a second test in one file (the first on line 2)"},
        BadLog{"no_ranks", "#  Rank", "#  Runk", "lists 0 '# Rank' line(s)", true},
        BadLog{"time_not_number", "        1024           256     float     sum      -1  ",
               "        1024           256     float     sum      -1     fast", "line 19 (out-of-place time) = 'fast'"},
        BadLog{"sizes_decrease", "        2048           512", "         512           128",
               "line 20 (size) = '512': sizes must increase (line 19 has 1024)"},
        BadLog{"short_row", "           256     float     sum      -1  ", "           256\n",
               "line 19 = '        1024           256': a result row has"},
        BadLog{"wrong_collective", "starting: all_reduce_perf", "starting: all_gather_perf",
               "(out-of-place busbw)"},
        BadLog{"duplicate_rank", "#  Rank  1 ", "#  Rank  0 ", "line 7 (rank) = '0': rank listed twice"}),
    [](const auto& p) { return std::string(p.param.name); });

TEST(NcclTestsCalibrate, RefusesLogsBeyondOneNvlinkDomain) {
  NcclTestsLogSpec spec = model_log(CalibratedCollective::all_reduce, {370e9, 20e-6, 0, {}}, 16);
  const std::string path = testing::write_temp_file("two_nodes_all_reduce.log", testing::nccl_tests_log_text(spec));
  const auto r = run_trainsim({"calibrate", "--from-nccl-tests", path, "--cluster", "dgx-h100"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("more ranks than dgx-h100's NVLink domain (8 GPUs on 1 node)"), std::string::npos) << r.err;
}

TEST(NcclTestsCalibrate, NeedsTheCluster) {
  const auto r = run_trainsim({"calibrate", "--from-nccl-tests", fixture("h200-all_gather.log")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--cluster"), std::string::npos) << r.err;
}

// collective's JSON rows as the times of an nccl-tests log.
NcclTestsLogSpec simulated_log(const std::vector<std::string>& collective_args, const std::string& test, int ranks) {
  std::vector<std::string> args{"collective", "--json"};
  args.insert(args.end(), collective_args.begin(), collective_args.end());
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  NcclTestsLogSpec spec;
  spec.test = test;
  spec.ranks = ranks;
  for (const auto& row : nlohmann::json::parse(r.out)) {
    spec.bytes.push_back(row.at("bytes").get<double>());
    spec.time_us.push_back(row.at("time_s").get<double>() * 1e6);
  }
  return spec;
}

TEST(NcclTestsCalibrate, CollectiveWithAKnownCalibrationIsFittedBackAndReproduced) {
  // A calibration with known parameters, simulated by `trainsim collective` on SimGrid, its
  // table written as nccl-tests logs, fitted by calibrate: the parameters come back within
  // 2 %, and collective with the fitted file reproduces the logs within 5 % at every size.
  const std::string dir = fresh_dir("roundtrip");
  std::ofstream(dir + "/known.txt") << "gpu = h100-sxm\n[all_reduce]\nbus_bandwidth_GBps = 372\nfixed_latency_us = 23.5\n"
                                       "[alltoall]\nbus_bandwidth_GBps = 330\nfixed_latency_us = 11\n"
                                       "[sendrecv]\nbus_bandwidth_GBps = 140\nfixed_latency_us = 7\n";
  const std::vector<std::string> sizes{"-b", "1K", "-e", "4G"};
  struct Op {
    const char* op;
    const char* test;
    CalibratedCollective c;
    double bus_GBps;
    double latency_us;
  };
  const Op ops[] = {{"allreduce", "all_reduce_perf", CalibratedCollective::all_reduce, 372, 23.5},
                    {"alltoall", "alltoall_perf", CalibratedCollective::all_to_all, 330, 11},
                    {"sendrecv", "sendrecv_perf", CalibratedCollective::send_recv, 140, 7}};
  std::vector<std::string> calibrate{"calibrate", "--cluster", "dgx-h100", "--out", dir + "/fitted.txt",
                                     "--from-nccl-tests"};
  std::vector<NcclTestsLogSpec> specs;
  for (const Op& op : ops) {
    std::vector<std::string> args{"--cluster", "dgx-h100", "--op", op.op, "--fabric-calibration", dir + "/known.txt"};
    args.insert(args.end(), sizes.begin(), sizes.end());
    specs.push_back(simulated_log(args, op.test, 8));
    const std::string log = dir + "/" + op.test + ".log";
    std::ofstream(log) << testing::nccl_tests_log_text(specs.back());
    calibrate.push_back(log);
  }
  const auto r = run_trainsim(calibrate);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("fabric calibration: " + dir + "/fitted.txt"), std::string::npos) << r.out;
  const FabricCalibration fitted = read_fabric_calibration(dir + "/fitted.txt");
  EXPECT_EQ(fitted.gpu, "h100-sxm");
  for (std::size_t i = 0; i < std::size(ops); ++i) {
    const Op& op = ops[i];
    expect_within(fitted[op.c].bus_bandwidth_Bps / 1e9, op.bus_GBps, 0.02, op.op);
    expect_within(fitted[op.c].fixed_latency_s * 1e6, op.latency_us, 0.02, op.op);
    std::vector<std::string> args{"--cluster", "dgx-h100", "--op", op.op, "--fabric-calibration", dir + "/fitted.txt"};
    args.insert(args.end(), sizes.begin(), sizes.end());
    const NcclTestsLogSpec again = simulated_log(args, op.test, 8);
    ASSERT_EQ(again.time_us.size(), specs[i].time_us.size());
    for (std::size_t k = 0; k < again.time_us.size(); ++k)
      EXPECT_NEAR(again.time_us[k] / specs[i].time_us[k], 1.0, 0.05) << op.op << " at " << again.bytes[k] << " B";
  }
}

TEST(NcclTestsCalibrate, PublishedNvl72RackIsFittedAndReproduced) {
  // public.md D2: a full GB200 NVL72 rack's all-reduce, 512 MiB to 8 GiB (coreweave/nccl-tests
  // PR #43). One latency and one bandwidth fit the five sizes within 3 %; collective with the
  // file reproduces the log within 5 % at each.
  const std::string dir = fresh_dir("nvl72");
  const auto r = run_trainsim({"calibrate", "--from-nccl-tests", fixture("gb200-nvl72-all_reduce.log"), "--cluster",
                               "gb200-nvl72", "--out", dir + "/fabric.txt"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NcclTestsLog log = profile::read_nccl_tests_log(fixture("gb200-nvl72-all_reduce.log"));
  const FabricCalibration fitted = read_fabric_calibration(dir + "/fabric.txt");
  EXPECT_LT(profile::nccl_tests_fit_worst_error({log}, fitted), 0.03);
  const NcclTestsLogSpec simulated = simulated_log({"--cluster", "gb200-nvl72", "--gpus", "72", "--op", "allreduce",
                                                    "--fabric-calibration", dir + "/fabric.txt", "-b", "512M", "-e",
                                                    "8G"},
                                                   "all_reduce_perf", 72);
  ASSERT_EQ(simulated.time_us.size(), log.rows.size());
  for (std::size_t k = 0; k < log.rows.size(); ++k)
    EXPECT_NEAR(simulated.time_us[k] * 1e-6 / log.rows[k].time_s, 1.0, 0.05) << log.rows[k].bytes;
}

TEST(NcclTestsCalibrate, PublishedH200CollectivesAreReproducedByAScenario) {
  // public.md D2: 8 x H200 at 16 GiB, all-reduce (NVLS on) 480.0, all-gather 361.4,
  // reduce-scatter 362.9 GB/s busbw (stas00/ml-engineering). A scenario names the file by a
  // path relative to itself; collective on it gives the three figures.
  const std::string dir = fresh_dir("h200");
  const auto r = run_trainsim({"calibrate", "--cluster", "hgx-h200", "--out", dir + "/fabric.txt", "--from-nccl-tests",
                               fixture("h200-all_reduce.log"), fixture("h200-all_gather.log"),
                               fixture("h200-reduce_scatter.log")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ofstream(dir + "/job.ini") << "[model]\npreset = llama3-8b\n[cluster]\npreset = hgx-h200\n"
                                     "fabric_calibration = fabric.txt\n[parallel]\ntp = 8\n";
  const std::pair<const char*, double> ops[] = {{"allreduce", 480.0}, {"allgather", 361.4}, {"reducescatter", 362.9}};
  for (const auto& [op, busbw] : ops) {
    const auto c = run_trainsim({"collective", dir + "/job.ini", "--op", op, "-b", "16G", "-e", "16G", "--json"});
    ASSERT_EQ(c.exit_code, 0) << c.err;
    EXPECT_NEAR(nlohmann::json::parse(c.out).at(0).at("busbw_GBps").get<double>(), busbw, 0.01 * busbw) << op;
  }
}

TEST(NcclTestsCalibrate, AFileOfAnotherGpuIsRefused) {
  const std::string dir = fresh_dir("other_gpu");
  std::ofstream(dir + "/fabric.txt") << "gpu = h200\n[all_reduce]\nbus_bandwidth_GBps = 480\n";
  const auto r = run_trainsim({"collective", "--cluster", "dgx-h100", "--fabric-calibration", dir + "/fabric.txt"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("was measured on h200 (its 'gpu' line), the cluster's GPU is h100-sxm"), std::string::npos)
      << r.err;
}

TEST(NcclTestsCalibrate, AScenarioNamingAMissingOrForeignFileIsRefused) {
  const std::string dir = fresh_dir("scenario_refusals");
  std::ofstream(dir + "/b200.txt") << "gpu = b200\n[all_gather]\nbus_bandwidth_GBps = 640\n";
  const std::pair<const char*, const char*> cases[] = {
      {"missing.txt", "cluster.fabric_calibration = 'missing.txt': must name a fabric calibration file"},
      {"b200.txt", "was measured on b200 (its 'gpu' line), the cluster's GPU is h100-sxm"},
  };
  for (const auto& [file, message] : cases) {
    const std::string scenario = dir + "/job_" + file + ".ini";
    std::ofstream(scenario) << "[model]\npreset = llama3-8b\n[cluster]\npreset = dgx-h100\nfabric_calibration = " << file
                            << "\n";
    const auto r = run_trainsim({"check", scenario});
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find(scenario + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
}

TEST(FabricCalibration, TextReadsBackAndBadLinesAreNamed) {
  FabricCalibration c;
  c.gpu = "b200";
  c[CalibratedCollective::reduce_scatter] = {701.25e9, 25.5e-6, 8e-6, {2, 8}};
  std::istringstream in(fabric_calibration_text(c, {"a comment"}));
  const FabricCalibration back = parse_fabric_calibration(in, "f.txt");
  EXPECT_EQ(back.gpu, "b200");
  EXPECT_DOUBLE_EQ(back[CalibratedCollective::reduce_scatter].bus_bandwidth_Bps, 701.25e9);
  EXPECT_DOUBLE_EQ(back[CalibratedCollective::reduce_scatter].step_latency_s, 8e-6);
  EXPECT_EQ(back[CalibratedCollective::reduce_scatter].ranks, (std::vector<int>{2, 8}));
  EXPECT_FALSE(back[CalibratedCollective::all_reduce].fitted());
  const std::pair<const char*, const char*> bad[] = {
      {"gpu = b200\n[broadcast]\n", "f.txt: line 2 = '[broadcast]': expected a section"},
      {"gpu = b200\n[all_reduce]\nbus_bandwidth_GBps = -3\n", "line 3, all_reduce.bus_bandwidth_GBps = '-3'"},
      {"gpu = b200\n[all_reduce]\nfixed_latency_us = 3\n", "all_reduce.bus_bandwidth_GBps: missing"},
      {"gpu = b200\n", "no collective"},
      {"[all_reduce]\nbus_bandwidth_GBps = 3\n", "f.txt: gpu: missing"},
      {"gpu = b200\n[sendrecv]\nbus_bandwidth_GBps = 3\nstep_latency_us = 1\n", "makes no ring steps"},
  };
  for (const auto& [text, message] : bad) {
    std::istringstream b(text);
    try {
      parse_fabric_calibration(b, "f.txt");
      ADD_FAILURE() << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace trainsim
