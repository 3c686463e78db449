#pragma once
// A PyTorch profiler trace, as Kineto writes it (Chrome trace event JSON: a top-level
// object with `traceEvents` and `deviceProperties`), reduced to what calibration needs:
//
//   cat "cpu_op" / "user_annotation"  X events on a CPU thread: an operator (aten::mm) or a
//       user range (ProfilerStep#3); with record_shapes=True, args."Input Dims",
//       args."Input type" and, in newer PyTorch, args."Concrete Inputs" (scalar values)
//   cat "cuda_runtime" / "cuda_driver"  X events on the launching thread (cudaLaunchKernel,
//       cudaMemcpyAsync), with args.correlation
//   cat "kernel" / "gpu_memcpy" / "gpu_memset"  X events on a GPU stream, with the same
//       args.correlation as their launch, and args.bytes for copies and sets
//
// Times are microseconds, as the trace writes them (`ts`, `dur`; integers in older
// traces, fractional in newer ones). Older Kineto versions spell the categories
// "Operator", "Runtime", "Kernel", "Memcpy", "Memset": both spellings are read.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainsim::profile {

/// One input of a CPU op as the profiler recorded it.
struct OpInput {
  std::vector<std::int64_t> shape;              ///< a tensor's dims; empty for scalars and absent inputs
  std::vector<std::vector<std::int64_t>> list;  ///< a tensor list's dims, where the trace nests them
  std::string type;                             ///< "float", "c10::BFloat16", "Scalar", "TensorList", ""
  std::string value;                            ///< its "Concrete Inputs" entry ("True", "0.1"); "" if none
};

/// A cpu_op (or user_annotation) range on one CPU thread.
struct TraceOp {
  std::string name;
  bool annotation = false;  ///< a user_annotation range (ProfilerStep#N, ## forward ##), not an operator
  std::string thread;       ///< "pid/tid"
  double start_us = 0;
  double end_us = 0;
  std::optional<std::int64_t> external_id;  ///< args."External id"
  bool has_shapes = false;                  ///< args."Input Dims" was recorded
  std::vector<OpInput> inputs;
};

/// A CUDA runtime or driver call on a CPU thread (the launch of GPU work).
struct RuntimeCall {
  std::string name;  ///< cudaLaunchKernel, cudaMemcpyAsync, ...
  std::string thread;
  double start_us = 0;
  double end_us = 0;
  std::int64_t correlation = 0;
  std::optional<std::int64_t> external_id;
};

enum class GpuActivityKind { kernel, memcpy, memset };

/// Work that ran on the GPU.
struct GpuActivity {
  GpuActivityKind kind = GpuActivityKind::kernel;
  std::string name;  ///< the kernel's name, or "Memcpy DtoD (Device -> Device)", "Memset (Device)"
  double duration_us = 0;
  std::optional<std::int64_t> correlation;  ///< args.correlation: its launch's id
  double bytes = -1;                        ///< args.bytes of copies and sets; -1 when absent
  std::string stream;  ///< "pid/tid": the device and stream it ran on
  double start_us = 0;
};

struct ProfilerTrace {
  std::string file;      ///< as given
  std::string gpu_name;  ///< deviceProperties[0].name; empty when the trace has none
  std::vector<TraceOp> ops;
  std::vector<RuntimeCall> runtime_calls;
  std::vector<GpuActivity> gpu;
  bool integer_microseconds = true;  ///< every GPU duration is a whole number of microseconds
};

/// Reads `path` (plain or gzip JSON). Throws InputError(path, key, value, rule), one line,
/// for: a file that is not JSON; no `traceEvents` array; a trace from another vendor's
/// accelerator (AMD ROCm/HIP, Meta MTIA: trainsim's tables are NVIDIA's); no GPU kernel
/// events; GPU kernels without correlation ids, or whose ids match no runtime launch.
ProfilerTrace read_profiler_trace(const std::string& path);

/// As read_profiler_trace, from the file's text; `file` names it in error messages.
ProfilerTrace parse_profiler_trace(const std::string& text, const std::string& file);

}  // namespace trainsim::profile
