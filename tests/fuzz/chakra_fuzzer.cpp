// libFuzzer target of the Chakra execution-trace reader (sim/workload/chakra_reader.hpp): the
// bytes of one rank's file in (plain or gzip), and either its nodes or an InputError out;
// nothing else may happen (another exception, a crash, undefined behaviour, a hang). A trace
// that reads has its node count within the reader's limit and every dependency on a node of
// the file.
//
//   build-fuzz/tests/fuzz/trainsim-fuzz-chakra CORPUS...   (tests/fuzz/README.md, "Fuzzing and sanitizers")

#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/core/error.hpp"
#include "sim/workload/chakra_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  trainsim::workload::RankTrace trace;
  try {
    trace = trainsim::workload::parse_rank_trace(bytes, "fuzz.0.et", 0);
  } catch (const trainsim::InputError&) {
    return 0;  // refused with the one-line reason the CLI prints: fine
  }
  if (trace.nodes.size() > trainsim::workload::k_max_trace_nodes) __builtin_trap();
  for (const trainsim::workload::ChakraNode& n : trace.nodes)
    for (const std::uint32_t d : n.deps)
      if (d >= trace.nodes.size()) __builtin_trap();
  return 0;
}
