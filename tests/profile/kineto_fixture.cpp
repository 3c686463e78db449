#include "profile/kineto_fixture.hpp"

#include <zlib.h>

#include <fstream>
#include <stdexcept>

namespace trainsim::testing {

using nlohmann::json;

namespace {

constexpr double k_launch_us = 5;

json host_event(const std::string& cat, const std::string& name, double ts, double dur, json args) {
  return {{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 1},
          {"tid", 1},  {"ts", ts},   {"dur", dur},   {"args", std::move(args)}};
}

// Copies and sets carry args.bytes (`bytes` >= 0); kernels do not.
json gpu_event(const std::string& cat, const std::string& name, double ts, double dur, double bytes = -1) {
  json e = {{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 0},
            {"tid", 7},  {"ts", ts},   {"dur", dur},   {"args", {{"device", 0}, {"stream", 7}}}};
  if (bytes >= 0) e["args"]["bytes"] = bytes;
  return e;
}

}  // namespace

KinetoTrace::KinetoTrace(const std::string& gpu_name) : trace_({{"schemaVersion", 1}, {"traceEvents", json::array()}}) {
  if (gpu_name.empty()) return;
  json device = json::object();
  device["id"] = 0;
  device["name"] = gpu_name;
  trace_["deviceProperties"] = json::array({device});
}

KinetoTrace& KinetoTrace::op(const std::string& name, double start_us, double dur_us, const json& dims,
                             const json& types) {
  trace_["traceEvents"].push_back(
      host_event("cpu_op", name, start_us, dur_us, {{"Input Dims", dims}, {"Input type", types}}));
  return *this;
}

KinetoTrace& KinetoTrace::launched(const std::string& runtime_call, json gpu, double launch_us) {
  const std::int64_t id = next_correlation_++;
  trace_["traceEvents"].push_back(
      host_event("cuda_runtime", runtime_call, launch_us, k_launch_us, {{"External id", id}, {"correlation", id}}));
  gpu["args"]["correlation"] = id;
  trace_["traceEvents"].push_back(std::move(gpu));
  return *this;
}

KinetoTrace& KinetoTrace::kernel(const std::string& name, double launch_us, double start_us, double dur_us) {
  return launched("cudaLaunchKernel", gpu_event("kernel", name, start_us, dur_us), launch_us);
}

KinetoTrace& KinetoTrace::memset(double launch_us, double start_us, double dur_us, double bytes) {
  return launched("cudaMemsetAsync", gpu_event("gpu_memset", "Memset (Device)", start_us, dur_us, bytes), launch_us);
}

KinetoTrace& KinetoTrace::memcpy(double launch_us, double start_us, double dur_us, double bytes) {
  return launched("cudaMemcpyAsync", gpu_event("gpu_memcpy", "Memcpy DtoD (Device -> Device)", start_us, dur_us, bytes),
                  launch_us);
}

KinetoTrace gemm_trace() {
  const std::string tf32_gemm =
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>"
      "(cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4::Params)";
  const json linear_dims = {{1024, 2880}, {256, 2880}, {256}};
  const json floats = {"float", "float", "float"};
  KinetoTrace t("NVIDIA A100-SXM4-80GB");
  t.op("aten::linear", 0, 100, linear_dims, floats).memset(10, 1000, 2, 256).kernel(tf32_gemm, 20, 1003, 40);
  t.op("aten::linear", 100, 100, linear_dims, floats).kernel(tf32_gemm, 120, 1045, 40);
  t.op("aten::mm", 200, 100, {{1024, 2880}, {2880, 256}}, {"float", "float"}).kernel(tf32_gemm, 220, 1087, 35);
  t.op("aten::copy_", 300, 100, {{1024, 256}, {1024, 256}, json::array()}, {"float", "float", "Scalar"})
      .memcpy(310, 1130, 10, 1 << 20);
  t.op("nccl:all_reduce", 400, 100, json::array(), json::array())
      .kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 410, 1150, 100);
  return t;
}

std::string write_trace(const json& trace, const std::string& path, Compression compression) {
  const std::string text = trace.dump();
  if (compression == Compression::plain) {
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  gzFile f = gzopen(path.c_str(), "wb");
  if (!f || gzwrite(f, text.data(), static_cast<unsigned>(text.size())) != static_cast<int>(text.size()) ||
      gzclose(f) != Z_OK)
    throw std::runtime_error("cannot write " + path);
  return path;
}

}  // namespace trainsim::testing
