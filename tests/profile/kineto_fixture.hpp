#pragma once
// PyTorch profiler (Kineto) traces the tests write themselves, so that the reader's format
// rules and the table's format are tested without the third-party traces. They follow the
// layout sim/profile/profiler_trace.hpp reads (modelled on what Kineto writes: a
// deviceProperties list naming the GPU, cpu_op events with args."Input Dims" and
// args."Input type", cuda_runtime launches and GPU events sharing args.correlation); the
// numbers are made up.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace trainsim::testing {

enum class Compression { plain, gzip };

/// A trace under construction. Ops and their launches run on one host thread (pid 1,
/// tid 1), GPU work on stream 7 of device 0 (pid 0, tid 7), as Kineto numbers them. Times
/// are microseconds; every launch call takes 5 us; each launch and the GPU work it queued
/// get the next correlation id (1, 2, ...).
class KinetoTrace {
 public:
  /// `gpu_name` is deviceProperties[0].name; "" writes no deviceProperties.
  explicit KinetoTrace(const std::string& gpu_name);

  /// A cpu_op over [start_us, start_us + dur_us] recorded with shapes: `dims` and `types`
  /// are its args."Input Dims" and "Input type" (one entry per input).
  KinetoTrace& op(const std::string& name, double start_us, double dur_us, const nlohmann::json& dims,
                  const nlohmann::json& types);
  /// A cudaLaunchKernel at launch_us and the kernel it queued, run over [start_us, start_us + dur_us].
  KinetoTrace& kernel(const std::string& name, double launch_us, double start_us, double dur_us);
  /// A cudaMemsetAsync and its gpu_memset of `bytes` ("Memset (Device)").
  KinetoTrace& memset(double launch_us, double start_us, double dur_us, double bytes);
  /// A cudaMemcpyAsync and its gpu_memcpy of `bytes` ("Memcpy DtoD (Device -> Device)").
  KinetoTrace& memcpy(double launch_us, double start_us, double dur_us, double bytes);

  /// The trace's top-level object (edit it to break a rule).
  nlohmann::json& root() { return trace_; }
  const nlohmann::json& root() const { return trace_; }

 private:
  KinetoTrace& launched(const std::string& runtime_call, nlohmann::json gpu_event, double launch_us);

  nlohmann::json trace_;
  std::int64_t next_correlation_ = 1;
};

/// The trace most tests use, on "NVIDIA A100-SXM4-80GB": one fp32 GEMM shape,
/// C[1024, 256] = A[1024, 2880] B[2880, 256], run three times on a TF32 CUTLASS kernel (two
/// aten::linear calls, weight [256, 2880], the first also clearing 256 bytes: 40 + 2 and
/// 40 us; one aten::mm: 35 us), a 1 MiB device-to-device copy (10 us) and an NCCL
/// all-reduce kernel (100 us) no row holds. Its table has two rows: the GEMM (3 calls,
/// median 40 us) and the copy.
KinetoTrace gemm_trace();

/// Writes `trace` to `path`, as Kineto does: plain JSON or gzip (mtime 0); returns `path`.
std::string write_trace(const nlohmann::json& trace, const std::string& path, Compression compression);

}  // namespace trainsim::testing
