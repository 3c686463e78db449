// sim/profile on a generated trace (kineto_fixture.hpp: the format, the rules, the table
// writer) and on a real one, one step of an A100 rank of HolisticTraceAnalysis' trace_diff
// control trace, a recommendation model trained in fp32 (../shared/data/profiles/README.md;
// those tests are skipped without it).

#include "sim/profile/profile_calibration.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include "models/training_spec.hpp"
#include "profile/kineto_fixture.hpp"
#include "profile/trace_support.hpp"
#include "sim/core/error.hpp"
#include "sim/profile/launch_gaps.hpp"
#include "sim/profile/profile_table_writer.hpp"
#include "sim/profile/profiler_trace.hpp"
#include "support/run_trainsim.hpp"

namespace trainsim::profile {
namespace {

using nlohmann::json;

// The real trace's calibration; call it after TRAINSIM_SKIP_WITHOUT(testing::control_trace()).
const ProfileCalibration& control() {
  static const ProfileCalibration c = calibrate_from_profile(read_profiler_trace(testing::control_trace()));
  return c;
}

const ProfileRow* find_row(const RowShape& shape) {
  for (const ProfileRow& r : control().rows)
    if (r.op.shape == shape) return &r;
  return nullptr;
}

// The generated trace, read from a file as `compression`.
ProfilerTrace read_gemm_trace(testing::Compression compression) {
  const std::string path = testing::write_temp_file("gemm.json", "");
  return read_profiler_trace(testing::write_trace(testing::gemm_trace().root(), path, compression));
}

TEST(ProfileTrace, ReadsAGeneratedTrace) {
  const ProfilerTrace t = read_gemm_trace(testing::Compression::gzip);
  EXPECT_EQ(t.gpu_name, "NVIDIA A100-SXM4-80GB");
  ASSERT_EQ(t.ops.size(), 5U);
  const TraceOp& linear = t.ops[0];
  EXPECT_EQ(linear.name, "aten::linear");
  EXPECT_EQ(linear.thread, "1/1");
  EXPECT_DOUBLE_EQ(linear.end_us, 100);
  EXPECT_TRUE(linear.has_shapes);
  ASSERT_EQ(linear.inputs.size(), 3U);
  EXPECT_EQ(linear.inputs[1].shape, (std::vector<std::int64_t>{256, 2880}));
  EXPECT_EQ(linear.inputs[2].shape, (std::vector<std::int64_t>{256}));
  EXPECT_EQ(linear.inputs[1].type, "float");
  EXPECT_TRUE(t.ops[3].inputs[2].shape.empty());  // aten::copy_'s non_blocking flag
  EXPECT_EQ(t.ops[3].inputs[2].type, "Scalar");
  ASSERT_EQ(t.runtime_calls.size(), 6U);
  EXPECT_EQ(t.runtime_calls[0].name, "cudaMemsetAsync");
  EXPECT_EQ(t.runtime_calls[0].correlation, 1);
  std::map<GpuActivityKind, int> kinds;
  for (const GpuActivity& g : t.gpu) kinds[g.kind] += 1;
  EXPECT_EQ(kinds[GpuActivityKind::kernel], 4);
  EXPECT_EQ(kinds[GpuActivityKind::memcpy], 1);
  EXPECT_EQ(kinds[GpuActivityKind::memset], 1);
  EXPECT_EQ(t.gpu[0].stream, "0/7");
  EXPECT_EQ(t.gpu[0].correlation, 1);
  EXPECT_DOUBLE_EQ(t.gpu[0].bytes, 256);
  EXPECT_TRUE(t.integer_microseconds);
}

TEST(ProfileTrace, FractionalDurationsAreNotWholeMicroseconds) {
  testing::KinetoTrace trace = testing::gemm_trace();
  for (auto& e : trace.root()["traceEvents"])
    if (e["cat"] == "kernel") e["dur"] = e["dur"].get<double>() + 0.25;
  EXPECT_FALSE(parse_profiler_trace(trace.root().dump(), "t.json").integer_microseconds);
}

TEST(ProfileTrace, ReadsTheRealTrace) {
  TRAINSIM_SKIP_WITHOUT(testing::control_trace());
  const ProfilerTrace t = read_profiler_trace(testing::control_trace());
  EXPECT_EQ(t.gpu_name, "NVIDIA A100-PG509-200");
  std::map<GpuActivityKind, int> kinds;
  for (const GpuActivity& g : t.gpu) kinds[g.kind] += 1;
  EXPECT_EQ(kinds[GpuActivityKind::kernel], 1428);
  EXPECT_EQ(kinds[GpuActivityKind::memcpy], 38);
  EXPECT_EQ(kinds[GpuActivityKind::memset], 109);
  EXPECT_TRUE(t.integer_microseconds);
  EXPECT_GT(t.runtime_calls.size(), 1575U);
}

// Of the ops around a launch the outermost with a rule owns its kernels and memsets; the
// calls of one shape are one row with their median time.
TEST(ProfileCalibration, RowsFromAGeneratedTrace) {
  const ProfileCalibration c = calibrate_from_profile(read_gemm_trace(testing::Compression::plain));
  EXPECT_EQ(c.gpu, "NVIDIA A100-SXM4-80GB");
  ASSERT_EQ(c.rows.size(), 2U);
  const ProfileRow& copy = c.rows[0];
  EXPECT_EQ(copy.op.shape, (RowShape{"copy_d2d", "u8", 1 << 20, 1, 0, 1}));
  EXPECT_DOUBLE_EQ(copy.op.bytes, 2.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(copy.time_s, 10e-6);
  const ProfileRow& gemm = c.rows[1];
  EXPECT_EQ(gemm.op.shape, (RowShape{"gemm", "tf32", 1024, 256, 2880, 1}));
  EXPECT_EQ(gemm.calls, 3);
  EXPECT_DOUBLE_EQ(gemm.time_s, 40e-6);
  EXPECT_DOUBLE_EQ(gemm.min_s, 35e-6);
  EXPECT_DOUBLE_EQ(gemm.max_s, 42e-6);  // the first call's kernel and memset
  EXPECT_EQ(gemm.ops, (std::vector<std::string>{"aten::linear", "aten::mm"}));
  // The NCCL kernel is communication, in no row.
  const ProfileSummary& s = c.summary;
  EXPECT_EQ(s.activities, 6);
  EXPECT_EQ(s.mapped, 5);
  ASSERT_EQ(s.unmapped.size(), 1U);
  EXPECT_TRUE(s.unmapped[0].communication);
  EXPECT_EQ(s.unmapped[0].launched_by, "nccl:all_reduce");
  EXPECT_NEAR(s.communication_time_s, 100e-6, 1e-12);
  EXPECT_NEAR(s.gpu_time_s, 227e-6, 1e-12);
}

TEST(ProfileCalibration, RowsFromTheRealTrace) {
  TRAINSIM_SKIP_WITHOUT(testing::control_trace());
  const ProfileCalibration& c = control();
  EXPECT_EQ(c.gpu, "NVIDIA A100-PG509-200");
  EXPECT_EQ(c.rows.size(), 242U);
  std::map<std::string, int> per_kernel;
  for (const ProfileRow& r : c.rows) {
    per_kernel[r.op.shape.kernel + "/" + r.op.shape.dtype] += 1;
    EXPECT_GT(r.time_s, 0);
    EXPECT_GE(r.calls, 1);
    EXPECT_LE(r.min_s, r.time_s);
    EXPECT_GE(r.max_s, r.time_s);
  }
  EXPECT_EQ(per_kernel["gemm/tf32"], 111);
  EXPECT_EQ(per_kernel["gemm/fp32"], 12);
  EXPECT_EQ(per_kernel["batched_gemm/tf32"], 4);
  EXPECT_EQ(per_kernel["batched_gemm/fp32"], 6);
  EXPECT_EQ(per_kernel["layernorm/fp32"], 5);
  EXPECT_EQ(per_kernel["layernorm_bwd/fp32"], 5);
  // Sorted by kernel, dtype and shape, each shape once.
  for (std::size_t i = 1; i < c.rows.size(); ++i) EXPECT_LT(c.rows[i - 1].op.shape, c.rows[i].op.shape);
}

// Per call of a CPU op, the summed duration of the kernels and memsets it launched (by correlation id to
// a runtime event on the op's thread inside the op's range), computed here from the JSON.
std::vector<double> kernel_time_per_call_us(const json& trace, const std::function<bool(const json&)>& is_call) {
  std::map<std::int64_t, const json*> launches;
  std::vector<const json*> calls;
  for (const json& e : trace["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    const std::string cat = e.value("cat", "");
    if (cat == "cuda_runtime") launches[e["args"]["correlation"].get<std::int64_t>()] = &e;
    if (cat == "cpu_op" && is_call(e)) calls.push_back(&e);
  }
  std::vector<double> times(calls.size(), 0.0);
  for (const json& e : trace["traceEvents"]) {
    if (e.value("cat", "") != "kernel" && e.value("cat", "") != "gpu_memset") continue;
    const auto launch = launches.find(e["args"]["correlation"].get<std::int64_t>());
    if (launch == launches.end()) continue;
    const json& r = *launch->second;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const json& op = *calls[i];
      if (op["pid"] == r["pid"] && op["tid"] == r["tid"] && op["ts"].get<double>() <= r["ts"].get<double>() &&
          r["ts"].get<double>() <= op["ts"].get<double>() + op["dur"].get<double>())
        times[i] += e["dur"].get<double>();
    }
  }
  return times;
}

TEST(ProfileCalibration, GemmRowRecomputedFromTheEvents) {
  // C[1024, 256] = A[1024, 2880] B[2880, 256]: the forward linear (weight [256, 2880]) and
  // the input gradient of the next layer's (aten::mm in AddmmBackward0).
  TRAINSIM_SKIP_WITHOUT(testing::control_trace());
  const json trace = testing::control_trace_json();
  const auto dims = [](const json& e) { return e["args"].value("Input Dims", json::array()); };
  const std::vector<double> per_call = kernel_time_per_call_us(trace, [&](const json& e) {
    const std::string name = e.value("name", "");
    const json d = dims(e);
    if (name == "aten::linear") return d.size() >= 2 && d[0] == json({1024, 2880}) && d[1] == json({256, 2880});
    if (name == "aten::mm") return d.size() == 2 && d[0] == json({1024, 2880}) && d[1] == json({2880, 256});
    return false;
  });
  ASSERT_EQ(per_call.size(), 3U);
  std::vector<double> sorted = per_call;
  std::sort(sorted.begin(), sorted.end());

  const ProfileRow* row = find_row({"gemm", "tf32", 1024, 256, 2880, 1});
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->calls, 3);
  EXPECT_DOUBLE_EQ(row->time_s, sorted[1] * 1e-6);
  EXPECT_DOUBLE_EQ(row->min_s, sorted[0] * 1e-6);
  EXPECT_DOUBLE_EQ(row->max_s, sorted[2] * 1e-6);
  EXPECT_DOUBLE_EQ(row->op.flops, 2.0 * 1024 * 256 * 2880);
  EXPECT_DOUBLE_EQ(row->op.bytes, (1024.0 * 2880 + 2880.0 * 256 + 1024.0 * 256) * 4);
  EXPECT_EQ(row->ops, (std::vector<std::string>{"aten::linear", "aten::mm"}));
}

TEST(ProfileCalibration, BatchedGemmRowIsTheMeanOfItsTwoCalls) {
  TRAINSIM_SKIP_WITHOUT(testing::control_trace());
  const json trace = testing::control_trace_json();
  const std::vector<double> per_call = kernel_time_per_call_us(trace, [](const json& e) {
    const json d = e["args"].value("Input Dims", json::array());
    return e.value("name", "") == "aten::bmm" && d.size() == 2 && d[0] == json({1024, 96, 647}) &&
           d[1] == json({1024, 647, 30});
  });
  ASSERT_EQ(per_call.size(), 2U);
  const ProfileRow* row = find_row({"batched_gemm", "tf32", 96, 30, 647, 1024});
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->calls, 2);
  EXPECT_DOUBLE_EQ(row->time_s, 0.5 * (per_call[0] + per_call[1]) * 1e-6);
}

TEST(ProfileCalibration, UnmappedKernelsAreSummarisedByName) {
  TRAINSIM_SKIP_WITHOUT(testing::control_trace());
  const ProfileSummary& s = control().summary;
  EXPECT_EQ(s.activities, 1575);
  int unmapped = 0;
  double unmapped_s = 0;
  for (const UnmappedKernel& u : s.unmapped) {
    unmapped += u.count;
    unmapped_s += u.time_s;
  }
  EXPECT_EQ(s.mapped + unmapped, s.activities);
  EXPECT_NEAR(s.mapped_time_s + unmapped_s, s.gpu_time_s, 1e-12);
  EXPECT_NEAR(s.mapped_time_s / s.gpu_time_s, 0.334, 0.001);
  // Largest first; the NCCL kernels are communication.
  for (std::size_t i = 1; i < s.unmapped.size(); ++i) EXPECT_GE(s.unmapped[i - 1].time_s, s.unmapped[i].time_s);
  ASSERT_FALSE(s.unmapped.empty());
  EXPECT_EQ(s.unmapped[0].name.rfind("ncclKernel_SendRecv", 0), 0U);
  EXPECT_TRUE(s.unmapped[0].communication);
  EXPECT_NEAR(s.communication_time_s / s.gpu_time_s, 0.349, 0.001);
  // FusedAdam's kernel runs under the optimizer annotation, without an op that has shapes.
  const auto adam = std::find_if(s.unmapped.begin(), s.unmapped.end(), [](const UnmappedKernel& u) {
    return u.name.find("AdamFunctor") != std::string::npos;
  });
  ASSERT_NE(adam, s.unmapped.end());
  EXPECT_EQ(adam->launched_by, "Optimizer.step#FusedAdam.step");
  EXPECT_EQ(adam->count, 8);
}

TEST(ProfileCalibration, GzipAndPlainGiveTheSameRows) {
  const ProfileCalibration from_plain = calibrate_from_profile(read_gemm_trace(testing::Compression::plain));
  ProfileCalibration gz = calibrate_from_profile(read_gemm_trace(testing::Compression::gzip));
  const TableProvenance p{"2026-01-01T00:00:00Z", "test"};
  gz.file = from_plain.file;  // the source line names the file
  EXPECT_EQ(profile_table_text(from_plain, p), profile_table_text(gz, p));
}

TEST(ProfileCalibration, TableWriterKeepsTheFormat) {
  ProfileCalibration c = calibrate_from_profile(read_gemm_trace(testing::Compression::gzip));
  c.file = "/somewhere/step.json.gz";  // the source line gives the file's name only
  const std::string text = profile_table_text(c, {"2026-01-01T00:00:00Z", "trainsim calibrate"});
  EXPECT_EQ(text.rfind("# gpu: NVIDIA A100-SXM4-80GB\n# source: measured (PyTorch profiler trace step.json.gz)\n", 0),
            0U);
  EXPECT_NE(text.find("\nkernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps\n"), std::string::npos);
  EXPECT_NE(text.find("\n# 3 calls of aten::linear, aten::mm, 35 us .. 42 us\ngemm,tf32,1024,256,2880,1,4e-05,"
                      "1509949440,15794176,37.7487,394.854\n"),
            std::string::npos);
  EXPECT_EQ(short_kernel_name("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, "
                              "64, 64>(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float>)",
                              200),
            "at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 64, 64>");
}

// One case per rule a trace can break, each an InputError naming the file.
void expect_refused(const std::string& text, const std::string& rule_part) {
  try {
    parse_profiler_trace(text, "t.json");
    FAIL() << "accepted; expected: " << rule_part;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "t.json");
    EXPECT_NE(std::string(e.what()).find(rule_part), std::string::npos) << e.what();
  }
}

TEST(ProfileTrace, RefusesBadTraces) {
  expect_refused("# gpu: x\nkernel,dtype", "not JSON");
  expect_refused("[1, 2]", "traceEvents");
  expect_refused(R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2}]})",
                 "no GPU kernel events");
  expect_refused(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {}}]})",
                 "correlation id");
  expect_refused(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2,
                     "args": {"correlation": 5}}]})",
                 "matches a cuda_runtime launch");
  expect_refused(R"({"deviceProperties": [{"name": "AMD Instinct MI300X"}], "traceEvents": []})", "AMD (ROCm)");
  // ROCm writes its HIP calls under cuda_runtime: refused even where no device is named.
  json hip = testing::gemm_trace().root();
  hip.erase("deviceProperties");
  for (json& e : hip["traceEvents"])
    if (e["cat"] == "cuda_runtime") e["name"] = "hipLaunchKernel";
  expect_refused(hip.dump(), "cuda_runtime name = 'hipLaunchKernel': a HIP call: an AMD (ROCm) GPU's trace");
}

}  // namespace
}  // namespace trainsim::profile

namespace trainsim::profile {
namespace {

// Two kernels on one stream: the second launched before the first ended (queued) starts
// 3 us after it; a third launched after the second ended (the host was late) is left out.
// (Launch calls take 5 us: b's returns at 11 us, c's at 205 us.)
TEST(LaunchGaps, OnlyQueuedKernelsCount) {
  testing::KinetoTrace trace("NVIDIA H100 80GB HBM3");
  trace.kernel("a", 0, 10, 100).kernel("b", 6, 113, 50).kernel("c", 200, 210, 50);
  const LaunchGaps gaps = measure_launch_gaps(parse_profiler_trace(trace.root().dump(), "synthetic.json"));
  EXPECT_EQ(gaps.pairs, 1u);
  EXPECT_DOUBLE_EQ(gaps.median_s, 3e-6);
}

// training.kernel_gap's default is this measurement (models/training_spec.hpp).
TEST(LaunchGaps, TheRealA100TraceGivesTheDefault) {
  TRAINSIM_SKIP_WITHOUT(testing::control_trace());
  const LaunchGaps gaps = measure_launch_gaps(read_profiler_trace(testing::control_trace()));
  EXPECT_EQ(gaps.pairs, 1059u);
  EXPECT_DOUBLE_EQ(gaps.median_s, TrainingSpec{}.kernel_gap_s);
}

}  // namespace
}  // namespace trainsim::profile
