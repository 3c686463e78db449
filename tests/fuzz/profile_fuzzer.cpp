// libFuzzer target of the profiler-trace reader (sim/profile/trace_file.hpp and
// profiler_trace.hpp): the bytes of a PyTorch profiler (Kineto) trace in, plain JSON or gzip,
// and either its events or an InputError out; nothing else may happen (another exception, a
// crash, undefined behaviour, a hang). Gzip is inflated under the reader's cap, as
// `calibrate --from-profile` does. A trace that reads has GPU activities (kernels among them).
//
//   build-fuzz/tests/fuzz/trainsim-fuzz-profile -dict=tests/fuzz/profile.dict CORPUS...
// (tests/fuzz/README.md, "Fuzzing and sanitizers").

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/core/bounded_read.hpp"
#include "sim/core/error.hpp"
#include "sim/profile/profiler_trace.hpp"
#include "sim/profile/trace_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  trainsim::profile::ProfilerTrace trace;
  try {
    const std::string text = trainsim::starts_as_gzip(bytes)
                                 ? trainsim::gunzip_capped(bytes, trainsim::profile::k_max_profiler_trace_bytes,
                                                           "fuzz.json.gz", "the profiler trace")
                                 : bytes;
    trace = trainsim::profile::parse_profiler_trace(text, "fuzz.json");
  } catch (const trainsim::InputError&) {
    return 0;  // refused with the one-line reason the CLI prints: fine
  }
  if (trace.gpu.empty()) __builtin_trap();  // a trace without kernels is refused
  return 0;
}
