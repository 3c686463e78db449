#pragma once
// A scenario small enough that a sweep test simulates dozens of points in seconds:
// two layers of Llama 3 8B on 2 GPUs, datasheet roofline, ideal fabric.

#include <string>

namespace trainsim::testing {

inline std::string tiny_scenario_text() {
  return "[model]\npreset = llama3-8b\nlayers = 2\nseq_len = 512\n"
         "[training]\ngrad_accum = 2\n"
         "[parallel]\ntp = 1\npp = 1\n"
         "[cluster]\npreset = dgx-h100\nnodes = 1\ngpus_per_node = 2\nfabric = ideal\ncalibration = none\n";
}

}  // namespace trainsim::testing
